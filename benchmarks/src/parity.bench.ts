// Parity report (issues 17 and 37): earshot's analysis of the 40 CC0 recordings that native Essentia's
// FreesoundExtractor analysed (../shared/reference/essentia-native), per descriptor of issue 17's list and
// then leaf by leaf over the whole tree (every statistic, every vector dimension): Spearman ρ and filter
// agreement against the reference values, with the targets and pass/fail; then each variant-B field against
// its counterpart (variant-b-report.ts in core's testing/).
// `npx earshot bench parity [--no-cache] [--save] [--worst N] [--reference DIR --audio DIR]`: another
// folder of reference outputs (`<name>.json` beside an audio folder holding `<name>.<ext>`) is compared
// the same way.
// `npx earshot bench parity --unseen [--save]`: the same whole-tree comparison on the package's recordings
// the native extractor never analysed (166), against a reference built with the reference's own kernels
// (essentia.js, benchmarks/src/essentia-reference/), restricted to the leaves where that reference
// reproduces the native values on the 40 calibration recordings (the validation table comes first), and the
// variant-B fields whose counterpart that reference reproduces there.
// `npx earshot bench parity --make-reference AUDIO_DIR OUT_DIR`: writes that reference, one JSON per
// audio file. Results of both analyses are cached under the system's temp folder (keyed by the audio's
// hash and the code's), so the figures always come from the current code. --save writes the tables to
// benchmarks/results/parity.md.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  formatParityReport,
  formatVariantBReport,
  formatWholeTreeReport,
  parityReport,
  VARIANT_B_COUNTERPARTS,
  variantBReport,
  type WholeTreeReport,
  wholeTreeReport,
} from '@earshot/core/testing';
import { realSamples } from '@earshot/fixtures';
import { arg } from './args.ts';
import {
  audioFiles,
  essentiaJsReferences,
  toolVersion,
  writeReferenceFolder,
} from './essentia-reference/reference-folder.ts';
import {
  checkCounterparts,
  checkLeaves,
  formatChecks,
  formatCounterpartChecks,
  keepLeaves,
} from './essentia-reference/validation.ts';
import { codeVersion, ourAnalyses } from './parity-analysis.ts';

type Tree = Record<string, unknown>;

const here = fileURLToPath(import.meta.url);
const resultsFile = path.join(path.dirname(here), '..', 'results', 'parity.md');
const useCache = !process.argv.includes('--no-cache');

function save(title: string, table: string): void {
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const section = `## ${stamp} ${title}\n\n\`\`\`\n${table}\n\`\`\`\n\n`;
  const header =
    '# Parity with the reference extractor (issues 17 and 37)\n\n`npx earshot bench parity --save`: Spearman ρ and filter agreement (mean Jaccard overlap of the recordings selected by the reference quartile ranges — four quarters, two halves — on the reference values and on ours) over the 40 reference recordings; first the 32 descriptors of issue 17, then every numeric leaf of the tree (issue 37), then every variant-B field against its counterpart in the reference output as Freesound derives it (numeric fields per dimension; categorical fields and event lists as the share of recordings that agree; docs/descriptors.md "Variant-B parity"). Sections marked "unseen recordings" (`--unseen --save`) compare the tree on the 166 recordings of the samples package without native values against the essentia.js reference, on the leaves that reference reproduces on the 40 (its validation table first).\n\n';
  const previous = fs.existsSync(resultsFile)
    ? fs.readFileSync(resultsFile, 'utf8').replace(/^# Parity[^\n]*\n\n[^\n]*\n\n/, '')
    : '';
  fs.writeFileSync(resultsFile, header + previous + section);
}

async function calibration(): Promise<void> {
  const referenceDir = arg('reference', '');
  const audioDir = arg('audio', '');
  if (Boolean(referenceDir) !== Boolean(audioDir))
    throw new Error(
      '--reference DIR and --audio DIR go together (reference JSONs and the audio they describe)',
    );
  const samples = referenceDir
    ? realSamples(path.resolve(referenceDir), path.resolve(audioDir))
    : realSamples();
  const ours = await ourAnalyses(samples, { label: 'analysis', useCache });
  const pairs = samples.map((s) => ({ reference: s.reference, ours: ours.get(s.name)?.variantA as Tree }));
  const variantBPairs = samples.map((s) => ({
    reference: s.reference,
    ours: ours.get(s.name)?.variantB as Tree,
  }));
  const table = `${formatParityReport(parityReport(pairs))}\n\n${formatWholeTreeReport(
    wholeTreeReport(pairs),
    Number(arg('worst', '40')),
  )}\n\n${formatVariantBReport(variantBReport(variantBPairs))}`;
  process.stdout.write(`${table}\n`);
  if (process.argv.includes('--save')) save(`(code ${codeVersion()})`, table);
}

async function makeReference(): Promise<void> {
  const i = process.argv.indexOf('--make-reference');
  const [audioDir, outDir] = process.argv.slice(i + 1, i + 3);
  if (!audioDir || !outDir || outDir.startsWith('--'))
    throw new Error('--make-reference AUDIO_DIR OUT_DIR: the audio folder and the folder to write');
  const trees = await essentiaJsReferences(audioFiles(path.resolve(audioDir)), {
    label: 'essentia.js reference',
    useCache,
  });
  writeReferenceFolder(path.resolve(outDir), trees);
  process.stdout.write(`wrote ${trees.size} reference JSONs to ${outDir}\n`);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function summaryLine(label: string, r: WholeTreeReport): string {
  return `${label.padEnd(46)}  ${String(r.recordings).padStart(10)}  ${String(r.leaves.length).padStart(6)}  ${pct(r.shareRho).padStart(6)}  ${pct(r.shareAgreement).padStart(7)}  ${r.medianAgreement.toFixed(3).padStart(9)}  ${pct(r.shareBoth).padStart(6)}`;
}

async function unseen(): Promise<void> {
  const calibrationSamples = realSamples();
  const audioDir = arg('audio', path.dirname(calibrationSamples[0].file));
  const calibrationNames = new Set(calibrationSamples.map((s) => s.name));
  const unseenFiles = audioFiles(audioDir).filter((f) => !calibrationNames.has(f.name));

  // 1. Which leaves the essentia.js reference reproduces, on the calibration recordings.
  const referenceCalibration = await essentiaJsReferences(calibrationSamples, {
    label: 'essentia.js reference, calibration',
    useCache,
  });
  const checks = checkLeaves(
    calibrationSamples
      .filter((s) => referenceCalibration.has(s.name))
      .map((s) => ({ native: s.reference, essentiaJs: referenceCalibration.get(s.name) as Tree })),
  );
  const kept = new Set(checks.filter((c) => c.reproduced).map((c) => c.leaf));
  const counterpartChecks = checkCounterparts(
    calibrationSamples
      .filter((s) => referenceCalibration.has(s.name))
      .map((s) => ({ native: s.reference, essentiaJs: referenceCalibration.get(s.name) as Tree })),
  );
  const keptFields = new Set(
    VARIANT_B_COUNTERPARTS.filter((c) => counterpartChecks.find((k) => k.field === c.field)?.ok).map(
      (c) => c.field,
    ),
  );

  // 2. The unseen recordings: the reference's reproduced leaves against our analysis.
  const referenceUnseen = await essentiaJsReferences(unseenFiles, {
    label: 'essentia.js reference, unseen',
    useCache,
  });
  const oursUnseen = await ourAnalyses(
    unseenFiles.filter((f) => referenceUnseen.has(f.name)),
    { label: 'analysis, unseen', useCache },
  );
  const oursCalibration = await ourAnalyses(calibrationSamples, { label: 'analysis, calibration', useCache });

  const unseenReport = wholeTreeReport(
    [...oursUnseen].map(([name, ours]) => ({
      reference: keepLeaves(referenceUnseen.get(name) as Tree, kept),
      ours: ours.variantA,
    })),
  );
  const unseenVariantB = variantBReport(
    [...oursUnseen].map(([name, ours]) => ({
      reference: referenceUnseen.get(name) as Tree,
      ours: ours.variantB,
    })),
    keptFields,
  );
  const sameLeavesNative = wholeTreeReport(
    calibrationSamples.map((s) => ({
      reference: keepLeaves(s.reference, kept),
      ours: oursCalibration.get(s.name)?.variantA as Tree,
    })),
  );
  const sameLeavesEssentiaJs = wholeTreeReport(
    calibrationSamples
      .filter((s) => referenceCalibration.has(s.name))
      .map((s) => ({
        reference: keepLeaves(referenceCalibration.get(s.name) as Tree, kept),
        ours: oursCalibration.get(s.name)?.variantA as Tree,
      })),
  );
  const table = [
    formatChecks(checks, referenceCalibration.size),
    '',
    `the ${kept.size} reproduced leaves, ours against the reference (targets: ρ ≥ 0.9 for ≥ 97% of leaves, agreement ≥ 0.8 for ≥ 90%, median agreement ≥ 0.9):`,
    `${'recordings, reference'.padEnd(46)}  recordings  leaves  ρ≥0.9  agr≥0.8  median agr   both`,
    summaryLine('calibration, native extractor', sameLeavesNative),
    summaryLine('calibration, essentia.js reference', sameLeavesEssentiaJs),
    summaryLine('unseen, essentia.js reference', unseenReport),
    '',
    `unseen recordings in detail (${unseenFiles.length} in ${path.basename(audioDir)}/ without native values):`,
    formatWholeTreeReport(unseenReport, Number(arg('worst', '40'))),
    '',
    formatCounterpartChecks(counterpartChecks),
    '',
    `unseen recordings, variant B (the ${keptFields.size} fields whose counterpart the essentia.js reference reproduces):`,
    formatVariantBReport(unseenVariantB),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  if (process.argv.includes('--save'))
    save(`(code ${codeVersion()}, essentia.js reference ${toolVersion()}) — unseen recordings`, table);
}

const mode = process.argv.includes('--make-reference')
  ? makeReference
  : process.argv.includes('--unseen')
    ? unseen
    : calibration;
mode().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
