import { describe, expect, it } from 'vitest';
import { FrameNoise, ReferencePitchYin, withSilenceNoise } from './pitch-yin.ts';
import { frameCount } from './spectrum.ts';

const SR = 44100;
const N = 2048;

function frameOf(signal: (i: number) => number): Float32Array {
  const frame = new Float32Array(N);
  for (let i = 0; i < N; i++) frame[i] = signal(i);
  return frame;
}

/** The reference's difference function and CMND by their definition (a direct O(N²) sum). */
function directCmnd(frame: Float32Array): number[] {
  const w = N / 2;
  const cmnd = [1];
  let sum = 0;
  for (let tau = 1; tau <= w; tau++) {
    let d = 0;
    for (let j = 0; j < w; j++) d += (frame[j] - frame[j + tau]) ** 2;
    sum += d;
    cmnd.push(sum > 0 ? (d * tau) / sum : 1);
  }
  return cmnd;
}

describe('ReferencePitchYin (the reference extractor’s PitchYin)', () => {
  const yin = new ReferencePitchYin(N, SR);

  it('finds a harmonic tone’s period at the first CMND dip below 0.15, as the direct definition does', () => {
    const f0 = 196;
    const frame = frameOf((i) => {
      let s = 0;
      for (let h = 1; h <= 8; h++) s += Math.sin((2 * Math.PI * f0 * h * i) / SR + h) / h;
      return 0.3 * s;
    });
    const estimate = yin.estimate(frame);
    expect(Math.abs(estimate.pitch - f0) / f0).toBeLessThan(0.01);
    expect(estimate.confidence).toBeGreaterThan(0.9);
    // The lag it reports (×1024/1025, the reference's position scale) is the first local minimum below 0.15.
    const cmnd = directCmnd(frame);
    const first = cmnd.findIndex((v, t) => t >= 2 && v < 0.15 && v <= cmnd[t + 1] && v <= cmnd[t - 1]);
    expect(Math.abs((SR / estimate.pitch) * (1024 / 1025) - first)).toBeLessThan(0.5);
  });

  it('reads the CMND of the direct definition (FFT cross-correlation is exact)', () => {
    let seed = 7;
    const frame = frameOf(() => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647 - 0.5;
    });
    // White noise has no dip below 0.15: the deepest local minimum wins; it matches the direct CMND's.
    const cmnd = directCmnd(frame);
    let best = 2;
    for (let t = 3; t < 1024; t++)
      if (cmnd[t] < cmnd[t - 1] && cmnd[t] <= cmnd[t + 1] && cmnd[t] < cmnd[best]) best = t;
    const estimate = yin.estimate(frame);
    expect(Math.abs((SR / estimate.pitch) * (1024 / 1025) - best)).toBeLessThan(0.5);
    expect(estimate.confidence).toBeLessThan(0.5);
  });

  it('keeps the reference’s edge rules: 22028.5 Hz for a Nyquist pattern, 43.0 Hz below the longest lag', () => {
    // d(2) = 0: the lower-edge peak at τ = 2, position 2·1025/1024.
    expect(yin.estimate(frameOf((i) => (i % 2 ? -0.5 : 0.5))).pitch).toBeCloseTo(SR / (2 * (1025 / 1024)), 1);
    // A 40 Hz sine's period (1102.5) is beyond τ = 1024: the CMND still falls there, the upper edge wins.
    expect(yin.estimate(frameOf((i) => 0.5 * Math.sin((2 * Math.PI * 40 * i) / SR))).pitch).toBeCloseTo(
      SR / 1025,
      1,
    );
  });

  it('gives no pitch for exact zeros, and the seeded noise of a silent frame gives one', () => {
    const zeros = new Float32Array(N);
    expect(yin.estimate(zeros)).toEqual({ pitch: 0, confidence: 0 });
    const scratch = new Float32Array(N);
    const noisy = withSilenceNoise(zeros, scratch, new FrameNoise());
    expect(noisy).toBe(scratch);
    expect(yin.estimate(noisy).pitch).toBeGreaterThan(40);
    // A frame above −100 dB is handed on untouched.
    const quiet = frameOf((i) => 1e-4 * Math.sin(i));
    expect(withSilenceNoise(quiet, scratch, new FrameNoise())).toBe(quiet);
  });

  it('counts the reference’s frames: centred on i·hop, up to the first centre at or past the end', () => {
    expect(frameCount(0, 1024, 2048)).toBe(0);
    expect(frameCount(4606, 1024, 2048)).toBe(6); // bd_chip: 6 frames in the reference's pitch track
    expect(frameCount(2048, 1024, 2048)).toBe(3);
  });
});
