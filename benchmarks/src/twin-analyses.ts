/**
 * Writes the twin set (packages/core/src/testing/twin-set.ts) and the whole variant-A analysis of
 * each of its clips to benchmarks/.cache/twins/ (reused when there), for twin-weights.ts to read.
 * Not a timing benchmark (no lock needed).
 *
 *   npx tsx benchmarks/src/twin-analyses.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { analyzeClip, listSimilaritySpaces } from '@earshot/core';
import { makeTwinSet, TWIN_BASES } from '@earshot/core/testing';

const root = path.resolve(import.meta.dirname, '../..');
export const TWIN_CACHE = process.env.TWIN_CACHE ?? path.join(root, 'benchmarks/.cache/twins');
const VARIANTS = ['original', 'quieter', 'twin', 'otherKey', 'otherTempo'] as const;

const set = makeTwinSet(path.join(TWIN_CACHE, 'audio'), TWIN_BASES);
let done = 0;
for (const files of set) {
  for (const variant of VARIANTS) {
    const out = path.join(TWIN_CACHE, `${path.basename(files[variant])}.json`);
    if (!fs.existsSync(out)) {
      // LEAN=1: only the spaces' inputs, on every frame (as codec-noise.ts without FULL), for a quick rerun.
      const { tree } = await analyzeClip(
        files[variant],
        process.env.LEAN
          ? { needs: listSimilaritySpaces().flatMap((s) => s.inputs), frameStride: 1, float32Fft: false }
          : { float32Fft: false },
      );
      fs.writeFileSync(out, JSON.stringify(tree));
    }
  }
  done++;
  if (done % 10 === 0) process.stdout.write(`${done} / ${set.length}\n`);
}
process.stdout.write(`analysed ${set.length} bases\n`);
