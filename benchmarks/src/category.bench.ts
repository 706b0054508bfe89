// Automatic broad-taxonomy category (issue 35): cross-validated accuracy of the classifiers on a
// labelled set of real recordings (the CC0 Sonic Pi samples, labelled by family:
// fixtures/src/sample-categories.ts), beside the majority-class baseline, per label, and the
// confidence threshold's coverage/accuracy trade-off.
// `npx earshot bench category [--folds 5]`. Each sample is analysed once as the pipeline does
// (analyzeFile, then its freesound_classic vector); the vectors are cached under
// benchmarks/.cache/category/ (gitignored).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CATEGORY_CONFIDENCE_THRESHOLD,
  CATEGORY_SPACE,
  categoryTrainingSet,
  classifyNearest,
  classifySoftmax,
  crossValidatedPredictions,
  DEFAULT_SOFTMAX_OPTIONS,
  type Evaluation,
  evaluatePredictions,
  type LabelledVector,
  type Learner,
  MAX_SOUNDS_PER_LABEL,
  type Prediction,
  similarityVectorFromAnalysis,
  trainCategoryModel,
  trainSoftmax,
} from '@earshot/core';
import { analyzeFile } from '@earshot/core/descriptors';
import { labelledRealSamples } from '@earshot/fixtures';
import { arg } from './args.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const cacheFile = path.join(here, '..', '.cache', 'category', `${CATEGORY_SPACE}-vectors.json`);
const resultsFile = path.join(here, '..', 'results', 'category.md');
const folds = Number(arg('folds', '5'));
const THRESHOLDS = [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

async function labelledVectors(): Promise<Array<LabelledVector & { name: string }>> {
  const cache: Record<string, number[]> = fs.existsSync(cacheFile)
    ? JSON.parse(fs.readFileSync(cacheFile, 'utf8'))
    : {};
  const samples = labelledRealSamples();
  let done = 0;
  for (const sample of samples) {
    if (!cache[sample.name]) {
      const { variantA } = await analyzeFile(sample.file);
      cache[sample.name] = Array.from(similarityVectorFromAnalysis(CATEGORY_SPACE, variantA));
    }
    done++;
    process.stderr.write(`\ranalysing the labelled samples: ${done} / ${samples.length}`);
  }
  process.stderr.write('\n');
  fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
  fs.writeFileSync(cacheFile, JSON.stringify(cache));
  return samples.map((s) => ({ name: s.name, label: s.code, vector: cache[s.name] }));
}

const majority: Learner = (training) => {
  const counts = new Map<string, number>();
  for (const e of training) counts.set(e.label, (counts.get(e.label) ?? 0) + 1);
  const [label, n] = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return () => ({ label, confidence: n / training.length });
};

const LEARNERS: Array<{ name: string; learner: Learner }> = [
  { name: 'majority class (baseline)', learner: majority },
  { name: 'k-NN, k = 1 (cosine)', learner: (t) => (v) => classifyNearest(t, v, 1) },
  { name: 'k-NN, k = 7 (cosine, weighted vote)', learner: (t) => (v) => classifyNearest(t, v, 7) },
  {
    name: 'softmax regression, unweighted',
    learner: (t) => {
      const m = trainSoftmax(t, { balanced: false });
      return (v) => classifySoftmax(m, v);
    },
  },
  {
    name: 'softmax regression, balanced, 400 iterations',
    learner: (t) => {
      const m = trainSoftmax(t, { iterations: 400 });
      return (v) => classifySoftmax(m, v);
    },
  },
  ...[0.001, 0.1, 1].map((l2) => ({
    name: `softmax regression, balanced, L2 ${l2}`,
    learner: ((t) => {
      const m = trainSoftmax(t, { l2 });
      return (v) => classifySoftmax(m, v);
    }) as Learner,
  })),
  {
    name: `softmax regression, balanced, L2 ${DEFAULT_SOFTMAX_OPTIONS.l2} (**production**)`,
    learner: (t) => {
      const m = trainCategoryModel(t);
      if (!m) throw new Error('too few labels to train on');
      return (v) => classifySoftmax(m, v);
    },
  },
];

const topLevel = (code: string) => code.split('-')[0];
const pct = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);

function balancedAccuracy(e: Evaluation): number {
  return e.perLabel.reduce((sum, l) => sum + l.recall, 0) / e.perLabel.length;
}

const examples = await labelledVectors();
const truth = examples.map((e) => e.label);
const counts = [...new Set(truth)].sort().map((l) => `${l} ${truth.filter((t) => t === l).length}`);

const lines: string[] = [];
const out = (line = '') => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
out('# Automatic category: cross-validated accuracy on real recordings');
out();
out(
  `${examples.length} CC0 Sonic Pi samples labelled by family with a broad-sound-taxonomy subcategory ` +
    `(${counts.join(', ')}); input: each sample's \`${CATEGORY_SPACE}\` vector from earshot's own analysis. ` +
    `${folds}-fold stratified cross-validation: every sample is classified by a model that never saw it.`,
);
out();
out('| classifier | accuracy | balanced accuracy (mean recall) | top-level category accuracy |');
out('|---|---:|---:|---:|');
let production: { evaluation: Evaluation; predictions: Prediction[] } | undefined;
for (const { name, learner } of LEARNERS) {
  const started = performance.now();
  const predictions = crossValidatedPredictions(examples, folds, learner);
  const evaluation = evaluatePredictions(truth, predictions, THRESHOLDS);
  const top = evaluatePredictions(
    truth.map(topLevel),
    predictions.map((p) => ({ ...p, label: topLevel(p.label) })),
  );
  out(
    `| ${name} | ${pct(evaluation.accuracy)} | ${pct(balancedAccuracy(evaluation))} | ${pct(top.accuracy)} |`,
  );
  process.stderr.write(`  ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  if (name.includes('production')) production = { evaluation, predictions };
}
if (!production) throw new Error('no production classifier in the list');
out();
out('## Production classifier, per label');
out();
out('| label | examples | recall | precision |');
out('|---|---:|---:|---:|');
for (const l of production.evaluation.perLabel)
  out(`| \`${l.label}\` | ${l.examples} | ${pct(l.recall)} | ${pct(l.precision)} |`);
out();
out('## Confidence threshold: coverage and accuracy');
out();
out(
  `A sound gets the estimate only when its confidence (the model's probability of its best label) ` +
    `reaches the threshold; earshot uses ${CATEGORY_CONFIDENCE_THRESHOLD}.`,
);
out();
out('| threshold | coverage | accuracy of those labelled |');
out('|---:|---:|---:|');
for (const t of production.evaluation.tradeoff)
  out(
    `| ${t.threshold}${t.threshold === CATEGORY_CONFIDENCE_THRESHOLD ? ' (used)' : ''} | ${pct(t.coverage)} | ${pct(t.accuracy)} |`,
  );
// Training time grows with examples × labels: the real set, and a catalogue-sized one made of the
// real vectors repeated, which training thins to MAX_SOUNDS_PER_LABEL per label.
const LARGE = 12_000;
const large = Array.from({ length: LARGE }, (_, i) => examples[i % examples.length]);
// The taxonomy's 25 subcategories at the cap: the real vectors under 25 made-up labels (time only).
const wide = Array.from({ length: 25 * MAX_SOUNDS_PER_LABEL }, (_, i) => ({
  ...examples[i % examples.length],
  label: `label-${i % 25}`,
}));
out();
out(
  `| training set | sounds | trained on (at most ${MAX_SOUNDS_PER_LABEL} per label) | labels | training time |`,
);
out('|---|---:|---:|---:|---:|');
for (const [name, set] of [
  ['the labelled samples', examples],
  ['the samples repeated, catalogue-sized', large],
  ['25 labels at the cap (timing only)', wide],
] as const) {
  const started = performance.now();
  const model = trainCategoryModel(set);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  out(
    `| ${name} | ${set.length} | ${categoryTrainingSet(set).length} | ${model?.labels.length} | ${seconds} s |`,
  );
}
out();
out(
  `Load average while it ran: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')} (2 cores, shared).`,
);
fs.writeFileSync(resultsFile, `${lines.join('\n')}\n`);
process.stderr.write(`written to ${path.relative(process.cwd(), resultsFile)}\n`);
