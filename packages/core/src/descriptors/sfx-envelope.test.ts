import { describe, expect, it } from 'vitest';
import { REFERENCE_ENVELOPE_BLOCK, referenceEnvelope, temporalShape } from './sfx-envelope.ts';

const SR = 44_100;

function tone(seconds: number, amp: (t: number) => number): Float32Array {
  const x = new Float32Array(Math.round(seconds * SR));
  for (let i = 0; i < x.length; i++) x[i] = amp(i / SR) * Math.sin((2 * Math.PI * 440 * i) / SR);
  return x;
}

describe('referenceEnvelope (Essentia Envelope as the Freesound extractor streams it)', () => {
  it('follows |x| with a 10 ms attack and restarts from zero at every 4096-sample block', () => {
    const x = new Float32Array(3 * REFERENCE_ENVELOPE_BLOCK).fill(0.5);
    const env = referenceEnvelope(x, SR);
    // One attack step: (1 − e^(−1/441))·0.5.
    expect(env[0]).toBeCloseTo(0.5 * (1 - Math.exp(-1 / 441)), 6);
    // 10 ms in, 1 − 1/e of the way up.
    expect(env[440]).toBeCloseTo(0.5 * (1 - Math.exp(-1)), 3);
    expect(env[REFERENCE_ENVELOPE_BLOCK - 1]).toBeGreaterThan(0.49);
    expect(env[REFERENCE_ENVELOPE_BLOCK]).toBeCloseTo(env[0], 7);
    expect(env[2 * REFERENCE_ENVELOPE_BLOCK + 440]).toBeCloseTo(env[440], 7);
  });

  it('releases with a 1.5 s time constant inside a block', () => {
    const x = new Float32Array(REFERENCE_ENVELOPE_BLOCK);
    x.fill(1, 0, 2000);
    const env = referenceEnvelope(x, SR);
    const drop = env[3999] / env[1999];
    expect(drop).toBeCloseTo(Math.exp(-2000 / (1.5 * SR)), 4);
  });
});

describe('temporalShape (Centroid, CentralMoments/DistributionShape, Decrease, EffectiveDuration)', () => {
  it('a flat envelope: centroid ½, spread 1/12, no skew, kurtosis −1.2, no decrease, full duration', () => {
    const s = temporalShape(new Float32Array(10_001).fill(0.3), SR);
    expect(s.centroid).toBeCloseTo(0.5, 9);
    expect(s.spread).toBeCloseTo(1 / 12, 3);
    expect(s.skewness).toBeCloseTo(0, 9);
    expect(s.kurtosis).toBeCloseTo(-1.2, 3);
    expect(s.decrease).toBeCloseTo(0, 9);
    expect(s.effectiveDuration).toBeCloseTo(10_001 / SR, 9);
  });

  it('a rising ramp leans late and has the slope of the ramp per normalized time', () => {
    const env = new Float32Array(1001).map((_, i) => (2 * i) / 1000);
    const s = temporalShape(env, SR);
    expect(s.centroid).toBeCloseTo(2 / 3, 3);
    expect(s.skewness).toBeLessThan(0);
    expect(s.decrease).toBeCloseTo(2, 4);
    // Above 10% of the peak: the last 90% of the ramp.
    expect(s.effectiveDuration).toBeCloseTo(901 / SR, 6);
  });

  it('a percussive tone sits early, skews right and decreases', () => {
    const s = temporalShape(
      referenceEnvelope(
        tone(1, (t) => Math.exp(-t / 0.05)),
        SR,
      ),
      SR,
    );
    expect(s.centroid).toBeLessThan(0.2);
    expect(s.skewness).toBeGreaterThan(1);
    expect(s.kurtosis).toBeGreaterThan(0);
    expect(s.decrease).toBeLessThan(0);
    // The restarting follower falls under 10% of its peak once the tone has: about 0.1–0.2 s.
    expect(s.effectiveDuration).toBeGreaterThan(0.08);
    expect(s.effectiveDuration).toBeLessThan(0.25);
  });

  it('silence gives zeros and the reference kurtosis −3; fewer than two samples, the same', () => {
    for (const env of [new Float32Array(5000), new Float32Array(1)]) {
      expect(temporalShape(env, SR)).toEqual({
        centroid: 0,
        spread: 0,
        skewness: 0,
        kurtosis: -3,
        decrease: 0,
        effectiveDuration: 0,
      });
    }
  });
});
