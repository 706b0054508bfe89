// Parity report (issues 17 and 37): earshot's analysis of the 40 CC0 recordings that native Essentia's
// FreesoundExtractor analysed (../shared/reference/essentia-native), per descriptor of issue 17's list and
// then leaf by leaf over the whole tree (every statistic, every vector dimension): Spearman ρ and filter
// agreement against the reference values, with the targets and pass/fail.
// `npx earshot bench parity [--no-cache] [--save] [--worst N] [--reference DIR --audio DIR]`: another
// folder of reference outputs (`<name>.json` beside an audio folder holding `<name>.<ext>`) is compared
// the same way. Results of the analysis are cached per recording under
// the system's temp folder, keyed by the audio's hash and a hash of the analysis code (packages/core/src),
// so the figures always come from the current code. --save writes the table to benchmarks/results/parity.md.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeFile, stopEssentiaWorker } from '@earshot/core';
import {
  formatParityReport,
  formatWholeTreeReport,
  parityReport,
  wholeTreeReport,
} from '@earshot/core/testing';
import { realSamples } from '@earshot/fixtures';
import { arg } from './args.ts';

const here = fileURLToPath(import.meta.url);
const coreSrc = path.join(path.dirname(here), '..', '..', 'packages', 'core', 'src');
const resultsFile = path.join(path.dirname(here), '..', 'results', 'parity.md');
const cacheDir = path.join(os.tmpdir(), 'earshot-parity-cache');

/** A hash of every non-test source file of the analysis core: any change invalidates the cache. */
function codeVersion(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|js|mjs|wasm)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
        hash.update(path.relative(coreSrc, full));
        hash.update(fs.readFileSync(full));
      }
    }
  };
  walk(coreSrc);
  return hash.digest('hex').slice(0, 16);
}

async function main(): Promise<void> {
  const useCache = !process.argv.includes('--no-cache');
  const version = codeVersion();
  fs.mkdirSync(cacheDir, { recursive: true });
  const referenceDir = arg('reference', '');
  const audioDir = arg('audio', '');
  if (Boolean(referenceDir) !== Boolean(audioDir))
    throw new Error(
      '--reference DIR and --audio DIR go together (reference JSONs and the audio they describe)',
    );
  const samples = referenceDir
    ? realSamples(path.resolve(referenceDir), path.resolve(audioDir))
    : realSamples();
  const pairs: { reference: Record<string, unknown>; ours: Record<string, unknown> }[] = [];
  let analysed = 0;
  const t0 = performance.now();
  for (const [i, sample] of samples.entries()) {
    const audioHash = createHash('sha256').update(fs.readFileSync(sample.file)).digest('hex').slice(0, 16);
    const cached = path.join(cacheDir, `${sample.name}-${audioHash}-${version}.json`);
    let ours: Record<string, unknown>;
    if (useCache && fs.existsSync(cached)) ours = JSON.parse(fs.readFileSync(cached, 'utf8'));
    else {
      ours = (await analyzeFile(sample.file)).variantA as Record<string, unknown>;
      fs.writeFileSync(cached, JSON.stringify(ours));
      analysed++;
    }
    pairs.push({ reference: sample.reference, ours });
    process.stderr.write(`\r${i + 1}/${samples.length} ${sample.name.padEnd(24)}`);
  }
  await stopEssentiaWorker();
  process.stderr.write(
    `\ranalysed ${analysed}, cached ${samples.length - analysed} (code ${version}) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  const table = `${formatParityReport(parityReport(pairs))}\n\n${formatWholeTreeReport(
    wholeTreeReport(pairs),
    Number(arg('worst', '40')),
  )}`;
  process.stdout.write(`${table}\n`);
  if (process.argv.includes('--save')) {
    const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const section = `## ${stamp} (code ${version})\n\n\`\`\`\n${table}\n\`\`\`\n\n`;
    const header =
      '# Parity with the reference extractor (issues 17 and 37)\n\n`npx earshot bench parity --save`: Spearman ρ and filter agreement (mean Jaccard overlap of the recordings selected by the reference quartile ranges — four quarters, two halves — on the reference values and on ours) over the 40 reference recordings; first the 32 descriptors of issue 17, then every numeric leaf of the tree (issue 37).\n\n';
    const previous = fs.existsSync(resultsFile)
      ? fs.readFileSync(resultsFile, 'utf8').replace(/^# Parity[^\n]*\n\n[^\n]*\n\n/, '')
      : '';
    fs.writeFileSync(resultsFile, header + previous + section);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
