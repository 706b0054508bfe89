import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { realSamples } from '@earshot/fixtures';
import FFT from 'fft.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMono } from '../media/decode.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import {
  autocorrelationPeaks,
  EnhancedAutocorrelation,
  lagRange,
  OSS_HOP,
  OSS_WINDOW,
  ossCandidates,
  ossWindowCount,
  PERCIVAL_FRAME,
  PERCIVAL_HOP,
  percivalBpm,
  percivalFlux,
  percivalLowPass,
  tempoFromLags,
} from './percival-bpm.ts';

const SR = 44_100;

beforeAll(loadFloat32Fft);

/** The flux as the reference writes it: one logarithm per bin, fft.js's float64 transform. */
function fluxByBins(signal: Float32Array): number[] {
  const fft = new FFT(PERCIVAL_FRAME);
  const out = fft.createComplexArray() as number[];
  const input = new Float64Array(PERCIVAL_FRAME);
  const bins = PERCIVAL_FRAME / 2 + 1;
  let previous = new Float64Array(bins);
  const flux: number[] = [];
  for (let start = 0; start + PERCIVAL_FRAME <= signal.length; start += PERCIVAL_HOP) {
    for (let i = 0; i < PERCIVAL_FRAME; i++)
      input[i] = signal[start + i] * (0.53836 - 0.46164 * Math.cos((2 * Math.PI * i) / (PERCIVAL_FRAME - 1)));
    fft.realTransform(out, input);
    const current = new Float64Array(bins);
    let sum = 0;
    for (let k = 0; k < bins; k++) {
      current[k] = Math.log(1 + (1000 * Math.hypot(out[2 * k], out[2 * k + 1])) / PERCIVAL_FRAME);
      sum += Math.max(0, current[k] - previous[k]);
    }
    flux.push(sum);
    previous = current;
  }
  return flux;
}

/** A decaying 1 kHz click every `period` seconds over a quiet noise floor. */
function clickTrack(seconds: number, period: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    out[i] = 1e-3 * (seed / 2 ** 32 - 0.5);
  }
  for (let t = 0; t < seconds; t += period) {
    const from = Math.round(t * SR);
    for (let i = 0; i < 0.05 * SR && from + i < out.length; i++)
      out[from + i] += Math.exp(-i / (0.005 * SR)) * Math.sin((2 * Math.PI * 1000 * i) / SR);
  }
  return out;
}

describe('percivalFlux (the onset strength before its low-pass)', () => {
  it('is the half-rectified flux of log(1 + 1000·|X|/1024), one value per whole frame', () => {
    const signal = clickTrack(2, 0.3);
    const ours = percivalFlux(signal);
    const expected = fluxByBins(signal);
    expect(ours.length).toBe(Math.floor((signal.length - PERCIVAL_FRAME) / PERCIVAL_HOP) + 1);
    expect(ours.length).toBe(expected.length);
    for (let f = 0; f < expected.length; f++)
      expect(Math.abs(ours[f] - expected[f])).toBeLessThanOrEqual(1e-4 * Math.max(1, expected[f]));
  });

  it('has no frame under 1024 samples and zeros for silence', () => {
    expect(percivalFlux(new Float32Array(PERCIVAL_FRAME - 1)).length).toBe(0);
    expect(percivalFlux(new Float32Array(PERCIVAL_FRAME)).length).toBe(1);
    expect([...percivalFlux(new Float32Array(SR))].every((x) => x === 0)).toBe(true);
  });
});

describe('percivalLowPass', () => {
  it('answers an impulse with the 15 FIR taps, symmetric, summing to 1', () => {
    const impulse = new Float32Array(20);
    impulse[0] = 1;
    const taps = [...percivalLowPass(impulse)];
    expect(taps.slice(15)).toEqual([0, 0, 0, 0, 0]);
    for (let k = 0; k < 15; k++) expect(taps[k]).toBe(taps[14 - k]);
    expect(taps[7]).toBeCloseTo(0.13386527, 7);
    expect(taps.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });
});

describe('EnhancedAutocorrelation', () => {
  it('is the inverse transform of |X|^0.5 of the window padded to 4096, with r(2i) and r(4i) added', () => {
    const window = new Float32Array(OSS_WINDOW);
    for (let i = 0; i < 600; i++) window[i] = Math.max(0, Math.sin(i / 5)) + 0.1 * Math.cos(i / 37);
    const ours = new Float32Array(OSS_WINDOW);
    new EnhancedAutocorrelation().compute(window, ours);
    const n = 2 * OSS_WINDOW;
    const fft = new FFT(n);
    const padded = new Float64Array(n);
    padded.set(window);
    const spectrum = fft.createComplexArray() as number[];
    fft.realTransform(spectrum, padded);
    fft.completeSpectrum(spectrum);
    const compressed = fft.createComplexArray() as number[];
    for (let k = 0; k < n; k++) compressed[2 * k] = Math.hypot(spectrum[2 * k], spectrum[2 * k + 1]) ** 0.5;
    const back = fft.createComplexArray() as number[];
    fft.inverseTransform(back, compressed);
    // fft.js's inverse divides by n, the float32 transform does not.
    const r = Array.from({ length: OSS_WINDOW }, (_, i) => back[2 * i] * n);
    const enhanced = r.map((v, i) => (i < OSS_WINDOW / 4 ? v + r[2 * i] + r[4 * i] : v));
    const peak = Math.max(...enhanced.map(Math.abs));
    for (let i = 0; i < OSS_WINDOW; i++) expect(Math.abs(ours[i] - enhanced[i])).toBeLessThan(1e-5 * peak);
  });
});

describe('autocorrelationPeaks (the reference PeakDetection)', () => {
  it('refines peaks by parabola, takes a plateau’s middle, keeps the ten largest, largest first', () => {
    const a = new Float32Array(60);
    a[12] = 1;
    a[11] = 0.5;
    a[13] = 0.5;
    a[20] = a[21] = 2;
    for (let i = 0; i < 12; i++) a[30 + 2 * i] = 0.1 + i * 0.01;
    const peaks = autocorrelationPeaks(a, 5, 55);
    expect(peaks[0]).toBe(20.5);
    expect(peaks[1]).toBe(12);
    expect(peaks).toHaveLength(10);
    expect(peaks.slice(2)).toEqual([52, 50, 48, 46, 44, 42, 40, 38]);
  });

  it('counts the first index when the values fall from it and stops at the first peak past the range', () => {
    const falling = Float32Array.from({ length: 40 }, (_, i) => 40 - i);
    falling[30] = 100;
    expect(autocorrelationPeaks(falling, 10, 25)).toEqual([10]);
    const beyond = new Float32Array(40);
    beyond[20] = 1;
    beyond[30] = 5;
    expect(autocorrelationPeaks(beyond, 10, 25)).toEqual([20]);
    expect(autocorrelationPeaks(new Float32Array(40), 10, 25)).toEqual([]);
  });
});

describe('OSS windows and lags', () => {
  it('cuts windows every 128 values, the last the first to reach the end', () => {
    expect(ossWindowCount(0)).toBe(0);
    expect(ossWindowCount(7)).toBe(1);
    expect(ossWindowCount(OSS_WINDOW)).toBe(1);
    expect(ossWindowCount(OSS_WINDOW + 1)).toBe(2);
    expect(ossWindowCount(OSS_WINDOW + OSS_HOP)).toBe(2);
    expect(ossWindowCount(OSS_WINDOW + OSS_HOP + 1)).toBe(3);
  });

  it('reads lags 98 … 413 at 44.1 kHz (50–210 BPM)', () => {
    expect(lagRange(SR)).toEqual({ min: 98, max: 413 });
  });

  it('gives a single lag back as its tempo, halved or doubled by the octave classifier', () => {
    expect(tempoFromLags([], SR)).toBe(0);
    expect(tempoFromLags([-1, -1], SR)).toBe(0);
    // One lag: the histogram peaks on it; these two sit in the classifier's "same" region.
    expect(tempoFromLags([170], SR)).toBeCloseTo((60 * SR) / 128 / 170, 3);
    expect(tempoFromLags([159, 159, -1], SR)).toBeCloseTo((60 * SR) / 128 / 159, 3);
    // A short lag (fast tempo) with nothing below it: halved.
    expect(tempoFromLags([104], SR)).toBeCloseTo((60 * SR) / 128 / 104 / 2, 3);
  });

  it('finds a click track’s period among its candidates and its tempo to an octave', () => {
    const period = 0.5;
    const bpm = percivalBpm(clickTrack(12, period), SR);
    const ratio = bpm / (60 / period);
    expect([0.5, 1, 2].some((octave) => Math.abs(ratio / octave - 1) < 0.01)).toBe(true);
    expect(percivalBpm(new Float32Array(SR), SR)).toBe(0);
    expect(percivalBpm(new Float32Array(500), SR)).toBe(0);
  });
});

interface Recording {
  name: string;
  samples: Float32Array;
  bpmLoop: number;
}

const recordings: Recording[] = [];

/**
 * tabla_ke1 is 43 ms long: its OSS has 7 values, and the peaks of its autocorrelation between lags 98 and
 * 413 are at the level of float32 rounding, where two transforms' rounding picks different peaks
 * (essentia.js's own transform picks another one than the reference and than ours).
 */
const ROUNDING_DECIDES = new Set(['tabla_ke1']);

describe('percivalBpm on the 40 reference recordings', () => {
  beforeAll(async () => {
    for (const sample of realSamples()) {
      const { samples } = await decodeMono(sample.file);
      const rhythm = (sample.reference as { rhythm: { bpm_loop: number } }).rhythm;
      recordings.push({ name: sample.name, samples, bpmLoop: rhythm.bpm_loop });
    }
  }, 120_000);

  it('gives the reference extractor’s rhythm.bpm_loop (every one but a 43 ms sound)', () => {
    expect(recordings).toHaveLength(40);
    for (const r of recordings) {
      if (ROUNDING_DECIDES.has(r.name)) continue;
      expect(percivalBpm(r.samples, SR), r.name).toBeCloseTo(r.bpmLoop, 3);
    }
  });

  it('with the published pulse-train step, gives what essentia.js’s PercivalBpmEstimator gives where its reads stay in the window', async () => {
    // Lags up to 291 keep the pulse trains inside the 2048-value window (7·lag ≤ 2048): defined
    // behaviour in both. essentia.js runs in a worker thread (it installs process-wide handlers).
    const minBpm = 71;
    const theirs = await essentiaPercival(
      recordings.map((r) => r.samples),
      minBpm,
    );
    for (const [i, r] of recordings.entries()) {
      if (ROUNDING_DECIDES.has(r.name)) continue;
      const oss = percivalLowPass(percivalFlux(r.samples));
      const lags = ossCandidates(oss, SR, minBpm).map((candidates, w) => {
        const window = new Float32Array(OSS_WINDOW);
        window.set(oss.subarray(w * OSS_HOP, Math.min(oss.length, w * OSS_HOP + OSS_WINDOW)));
        return pulseTrainLag(window, candidates);
      });
      expect(tempoFromLags(lags, SR), r.name).toBeCloseTo(theirs[i], 3);
    }
  }, 120_000);
});

/**
 * The published method's step 2b (Percival & Tzanetakis 2014), as essentia.js's build applies it: per
 * candidate lag and phase, the OSS summed at 4 beats (weight 1), 4 half-tempo beats and 4 beats of 2/3
 * the period (weight ½ each); score = best phase's sum / the candidates' sum + the variance over
 * phases / the candidates' sum; the best candidate's rounded lag (−1 without candidates).
 */
function pulseTrainLag(oss: Float32Array, candidates: number[]): number {
  if (candidates.length === 0) return -1;
  const best = candidates.map((candidate) => {
    const period = Math.round(candidate);
    const sums = Array.from({ length: period }, (_, phase) => {
      let s = 0;
      for (let b = 0; b < 4; b++)
        s +=
          oss[phase + b * period] +
          0.5 * oss[phase + b * period * 2] +
          0.5 * oss[phase + Math.trunc((b * period * 3) / 2)];
      return s;
    });
    const mean = sums.reduce((a, x) => a + x, 0) / period;
    return {
      tempo: Math.max(...sums),
      onset: sums.reduce((a, x) => a + (x - mean) ** 2, 0) / period,
    };
  });
  const tempoSum = best.reduce((a, x) => a + x.tempo, 0);
  const onsetSum = best.reduce((a, x) => a + x.onset, 0);
  const scores = best.map((x) => x.tempo / tempoSum + x.onset / onsetSum);
  let chosen = 0;
  for (let c = 1; c < scores.length; c++) if (scores[c] > scores[chosen]) chosen = c;
  return Math.round(candidates[chosen]);
}

/** essentia.js's PercivalBpmEstimator (1024/128, 2048/128, minBpm … 210) on each signal, in a worker thread. */
function essentiaPercival(signals: Float32Array[], minBpm: number): Promise<number[]> {
  const essentiaPath = createRequire(import.meta.url).resolve('essentia.js');
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { Essentia, EssentiaWASM } = require(workerData.essentiaPath);
    const essentia = new Essentia(EssentiaWASM);
    const bpms = workerData.signals.map((signal) => {
      const vector = essentia.arrayToVector(signal);
      try {
        return essentia.PercivalBpmEstimator(vector, 1024, 2048, 128, 128, 210, workerData.minBpm, 44100).bpm;
      } finally {
        vector.delete();
      }
    });
    parentPort.postMessage(bpms);
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { essentiaPath, signals, minBpm } });
    worker.once('message', (bpms: number[]) => {
      resolve(bpms);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
