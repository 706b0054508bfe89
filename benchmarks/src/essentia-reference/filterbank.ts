/**
 * A band filterbank of essentia.js (MelBands, the MFCC's mel bands, the GFCC's ERB bands) read out as
 * its weight matrix, so each frame's bands are one sparse product instead of an essentia.js call that
 * rebuilds the filters (5–50 ms each, minutes per run). The weights are the kernel's own: column k is
 * its output for a spectrum that is 1 in bin k and 0 elsewhere. That reading is only valid for a bank
 * that sums weighted bin powers, which `readFilterbank` checks on the kernel itself (doubling a bin
 * quadruples its bands; two bins give the sum of each alone) before returning the matrix.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EssentiaJs } from './essentia-js.ts';

export interface Filterbank {
  /** Per band, its first bin and the weights from there (trailing zeros dropped). */
  bands: { from: number; weights: Float64Array }[];
}

/** The bands of one spectrum through `algorithm(spectrum, ...args)`'s `bands` output. */
function bandsOf(essentia: EssentiaJs, algorithm: string, args: unknown[], spectrum: Float32Array): number[] {
  const v = essentia.vector(spectrum);
  try {
    const out = essentia.run(algorithm, v, ...args);
    const bands = essentia.take(out.bands);
    essentia.free(out);
    return bands;
  } finally {
    v.delete();
  }
}

export function readFilterbank(
  essentia: EssentiaJs,
  algorithm: string,
  args: unknown[],
  bins: number,
): Filterbank {
  const impulse = (entries: [number, number][]) => {
    const s = new Float32Array(bins);
    for (const [k, a] of entries) s[k] = a;
    return s;
  };
  const columns: number[][] = [];
  for (let k = 0; k < bins; k++) columns.push(bandsOf(essentia, algorithm, args, impulse([[k, 1]])));
  const count = columns[0].length;
  // The checks: power law and additivity on a few bins inside the bank.
  for (const [j, k] of [
    [40, 41],
    [200, 260],
    [500, 700],
  ]) {
    const doubled = bandsOf(essentia, algorithm, args, impulse([[k, 2]]));
    const both = bandsOf(
      essentia,
      algorithm,
      args,
      impulse([
        [j, 1],
        [k, 1],
      ]),
    );
    for (let b = 0; b < count; b++) {
      const scale = Math.max(Math.abs(columns[k][b]), Math.abs(columns[j][b]), 1e-30);
      if (
        Math.abs(doubled[b] - 4 * columns[k][b]) > 1e-4 * scale ||
        Math.abs(both[b] - columns[j][b] - columns[k][b]) > 1e-4 * scale
      )
        throw new Error(`${algorithm}: band ${b} is not a weighted sum of bin powers`);
    }
  }
  const bands = Array.from({ length: count }, (_, b) => {
    let from = 0;
    while (from < bins && columns[from][b] === 0) from++;
    let to = bins;
    while (to > from && columns[to - 1][b] === 0) to--;
    const weights = new Float64Array(to - from);
    for (let k = from; k < to; k++) weights[k - from] = columns[k][b];
    return { from, weights };
  });
  return { bands };
}

/** The bands of a power spectrum (|X|² per bin). */
export function applyFilterbank(bank: Filterbank, power: ArrayLike<number>): number[] {
  return bank.bands.map(({ from, weights }) => {
    let sum = 0;
    for (let i = 0; i < weights.length; i++) sum += weights[i] * power[from + i];
    return sum;
  });
}

/** The three banks of the low-level chain (the same kernels and settings as FreesoundLowlevelDescriptors). */
export interface LowLevelBanks {
  /** MFCC's 40 mel bands (its defaults: 0–11 kHz, HTK mel, unit-sum), written as `melbands`. */
  mel40: Filterbank;
  /** MelBands with 96 bands (its defaults otherwise), `melbands96`. */
  mel96: Filterbank;
  /** GFCC's 18 ERB bands in 26–9795 Hz, `erbbands`. */
  erb18: Filterbank;
}

const BINS = 1025;

/**
 * Reads the three banks from essentia.js (about a minute: the ERB bank's set-up is the slow one) or from
 * `cacheFile` when a previous run wrote it.
 */
export function lowLevelBanks(essentia: EssentiaJs, cacheFile?: string): LowLevelBanks {
  type Stored = Record<keyof LowLevelBanks, { from: number; weights: number[] }[]>;
  if (cacheFile && fs.existsSync(cacheFile)) {
    const stored = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as Stored;
    const revive = (bands: Stored[keyof Stored]) => ({
      bands: bands.map((b) => ({ from: b.from, weights: Float64Array.from(b.weights) })),
    });
    return { mel40: revive(stored.mel40), mel96: revive(stored.mel96), erb18: revive(stored.erb18) };
  }
  const u = undefined;
  const banks: LowLevelBanks = {
    mel40: readFilterbank(essentia, 'MFCC', [], BINS),
    mel96: readFilterbank(essentia, 'MelBands', [u, u, u, u, u, 96], BINS),
    erb18: readFilterbank(essentia, 'GFCC', [u, 9795, u, u, 26, 18], BINS),
  };
  if (cacheFile) {
    const plain = (bank: Filterbank) =>
      bank.bands.map((b) => ({ from: b.from, weights: Array.from(b.weights) }));
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(
      cacheFile,
      JSON.stringify({ mel40: plain(banks.mel40), mel96: plain(banks.mel96), erb18: plain(banks.erb18) }),
    );
  }
  return banks;
}
