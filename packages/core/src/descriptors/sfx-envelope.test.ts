import { describe, expect, it } from 'vitest';
import { flatnessSFX, REFERENCE_ENVELOPE_BLOCK, referenceEnvelope, temporalShape } from './sfx-envelope.ts';

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
        logAttackTime: -5,
        maxToTotal: 0,
        strongDecay: 0,
        flatness: 1,
        derAvAfterMax: 0,
        maxDerBeforeMax: 0,
      });
    }
  });

  it('attack: log10 of the time from 20% to 90% of the peak; max-to-total; strong decay √(Σe²/centroid s)', () => {
    // A linear rise over 1000 samples to 1, then flat for 1000: 20% at 200, 90% at 900.
    const env = new Float32Array(2000).map((_, i) => Math.min(1, (i + 1) / 1000));
    const s = temporalShape(env, SR);
    expect(s.logAttackTime).toBeCloseTo(Math.log10(700 / SR), 2);
    expect(s.maxToTotal).toBeCloseTo(999 / 2000, 9);
    let e2 = 0;
    let w = 0;
    let sum = 0;
    env.forEach((v, i) => {
      e2 += v * v;
      w += i * v;
      sum += v;
    });
    expect(s.strongDecay).toBeCloseTo(Math.sqrt(e2 / (w / sum / SR)), 6);
    // An attack under 0.1 ms reads −5, as the reference.
    expect(temporalShape(new Float32Array(100).fill(1), SR).logAttackTime).toBe(-5);
  });

  it('flatness: 95th over 20th percentile with interpolation at (n − 1)·p, whatever the order', () => {
    // Values 1…101 shuffled: the 20th percentile is 21, the 95th 96.
    const values = Array.from({ length: 101 }, (_, i) => i + 1);
    for (let i = values.length - 1; i > 0; i--) {
      const j = (i * 7919) % (i + 1);
      [values[i], values[j]] = [values[j], values[i]];
    }
    expect(flatnessSFX(Float32Array.from(values))).toBeCloseTo(96 / 21, 9);
    // 1…10: (n − 1)·p = 8.55 and 1.8 → 9.55 / 2.8.
    expect(flatnessSFX(Float32Array.from({ length: 10 }, (_, i) => 10 - i))).toBeCloseTo(9.55 / 2.8, 6);
  });

  it("derivatives: the largest rise up to the maximum, and DerivativeSFX's telescoped average after it", () => {
    const env = Float32Array.from([0.1, 0.4, 0.5, 1, 0.8, 0.6, 0.5]);
    const s = temporalShape(env, SR);
    expect(s.maxDerBeforeMax).toBeCloseTo(0.5, 6);
    // (last − the value before the maximum) / Σ from the maximum = (0.5 − 0.5) / 2.9.
    expect(s.derAvAfterMax).toBeCloseTo(0, 6);
    const decay = temporalShape(Float32Array.from([0.2, 1, 0.5, 0.25]), SR);
    expect(decay.derAvAfterMax).toBeCloseTo((0.25 - 0.2) / 1.75, 6);
  });
});
