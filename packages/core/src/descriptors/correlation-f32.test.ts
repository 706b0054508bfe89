import { realSamples } from '@earshot/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMono } from '../media/decode.ts';
import { Float32Autocorrelation } from './correlation-f32.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import { LOWLEVEL_FRAME, LOWLEVEL_HOP } from './lowlevel.ts';
import { ReferencePitchYin, YinDifference } from './pitch-yin.ts';
import { Autocorrelation, cutFrame } from './spectrum.ts';

/**
 * The float32 correlations a clip query uses give what fft.js's float64 ones give, within float32
 * rounding: YIN's difference function (so the reference pitch and its confidence) and the
 * autocorrelation the pitch salience reads, on every frame of real recordings.
 */

const N = LOWLEVEL_FRAME;
const frames: Float32Array[] = [];

beforeAll(async () => {
  await loadFloat32Fft();
  for (const sample of realSamples().slice(0, 10)) {
    const { samples } = await decodeMono(sample.file, { maxSeconds: 3 });
    for (let centre = 0; centre < samples.length; centre += LOWLEVEL_HOP) {
      const frame = new Float32Array(N);
      cutFrame(samples, centre, frame);
      frames.push(frame);
    }
  }
}, 60_000);

describe('float32 correlations', () => {
  it('give YIN the same difference function, pitch and confidence (but on ill-conditioned frames)', () => {
    const exact = new ReferencePitchYin(N, 44_100);
    const fast = new ReferencePitchYin(N, 44_100, 20, 22_050, 0.15, true);
    const cmndErrors: number[] = [];
    const confidenceErrors: number[] = [];
    let samePitch = 0;
    let voiced = 0;
    for (const frame of frames) {
      if (frame.every((x) => x === 0)) continue;
      const a = exact.estimate(frame);
      const b = fast.estimate(frame);
      let worst = 0;
      for (let tau = 0; tau <= N / 2; tau++) {
        worst = Math.max(worst, Math.abs(exact.difference.cmnd[tau] - fast.difference.cmnd[tau]));
      }
      cmndErrors.push(worst);
      confidenceErrors.push(Math.abs(a.confidence - b.confidence));
      if (a.confidence > 0.5 && a.confidence <= 1) {
        voiced++;
        if (Math.abs(a.pitch - b.pitch) <= a.pitch * 1e-3) samePitch++;
      }
    }
    const quantile = (xs: number[], q: number) => [...xs].sort((x, y) => x - y)[Math.floor(q * xs.length)];
    // Measured on 738 frames: confidence median 4e-8, p90 2e-7; CMND p90 3e-4, p99 2e-3. Two frames differ (a confidence of 26 in
    // float64: the reference's interpolation at a degenerate minimum, where any rounding moves the
    // chosen lag); a clip's mean over ~100 frames takes such a frame as its analysis by Essentia's
    // own float32 arithmetic would.
    expect(quantile(confidenceErrors, 0.5)).toBeLessThan(1e-6);
    expect(quantile(confidenceErrors, 0.99)).toBeLessThan(1e-3);
    // CMND(τ) = d(τ)·τ / Σd: at the smallest lags Σd is small, so float32 sums move it most there.
    expect(quantile(cmndErrors, 0.9)).toBeLessThan(1e-3);
    expect(quantile(cmndErrors, 0.99)).toBeLessThan(1e-2);
    expect(voiced).toBeGreaterThan(20);
    expect(samePitch / voiced).toBeGreaterThan(0.98);
  });

  it('give the salience the same autocorrelation of the spectrum (relative to lag 0)', () => {
    const size = 1024;
    const exact = new Autocorrelation(size);
    const fast = new Float32Autocorrelation(size);
    const a = new Float64Array(size);
    const b = new Float64Array(size);
    for (const frame of frames) {
      const x = frame.subarray(0, size);
      exact.compute(x, a);
      fast.compute(x, b);
      let worst = 0;
      for (let t = 0; t < size; t++) worst = Math.max(worst, Math.abs(a[t] - b[t]));
      expect(worst).toBeLessThanOrEqual(Math.max(a[0], 1e-30) * 1e-5);
    }
  });

  it('can fail: a YIN difference without its frame differs', () => {
    const d = new YinDifference(N, true);
    d.compute(frames[10]);
    const before = Float64Array.from(d.cmnd);
    d.compute(frames[40]);
    expect(d.cmnd).not.toEqual(before);
  });
});
