/**
 * earshot's analysis (both variants) of a list of recordings for the parity benches, cached per recording under
 * the system's temp folder, keyed by the audio's hash and a hash of the analysis code (packages/core/src),
 * so the figures always come from the current code.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeFile, stopEssentiaWorker } from '@earshot/core';

const here = fileURLToPath(import.meta.url);
const coreSrc = path.join(path.dirname(here), '..', '..', 'packages', 'core', 'src');
const cacheDir = path.join(os.tmpdir(), 'earshot-parity-cache');

/** A hash of every non-test source file of the analysis core: any change invalidates the cache. */
export function codeVersion(): string {
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

export interface OurAnalysis {
  variantA: Record<string, unknown>;
  variantB: Record<string, unknown>;
}

/** Our variant-A tree and variant-B fields of each recording, with a counter on stderr. */
export async function ourAnalyses(
  recordings: readonly { name: string; file: string }[],
  opts: { label: string; useCache: boolean },
): Promise<Map<string, OurAnalysis>> {
  const version = codeVersion();
  fs.mkdirSync(cacheDir, { recursive: true });
  const out = new Map<string, OurAnalysis>();
  let analysed = 0;
  const t0 = performance.now();
  for (const [i, { name, file }] of recordings.entries()) {
    const audioHash = createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);
    const cached = path.join(cacheDir, `${name}-${audioHash}-${version}-ab.json`);
    let analysis: OurAnalysis;
    if (opts.useCache && fs.existsSync(cached)) analysis = JSON.parse(fs.readFileSync(cached, 'utf8'));
    else {
      const { variantA, variantB } = await analyzeFile(file);
      analysis = {
        variantA: variantA as Record<string, unknown>,
        variantB: variantB as unknown as Record<string, unknown>,
      };
      fs.writeFileSync(cached, JSON.stringify(analysis));
      analysed++;
    }
    out.set(name, analysis);
    process.stderr.write(`\r${opts.label}: ${i + 1}/${recordings.length} ${name.padEnd(24)}`);
  }
  await stopEssentiaWorker();
  process.stderr.write(
    `\r${opts.label}: analysed ${analysed}, cached ${recordings.length - analysed} (code ${version}) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return out;
}
