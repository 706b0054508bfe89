import { describe, expect, it } from 'vitest';
import { MAX_SAMPLE_MAGNITUDE, sanitizeSamples } from './sanitize-samples.ts';

describe('sanitizeSamples', () => {
  it('silences non-finite samples and clips absurd magnitudes, leaving the rest exactly as decoded', () => {
    const samples = new Float32Array([
      0.5,
      Number.NaN,
      -1.25,
      Number.POSITIVE_INFINITY,
      3.4e38,
      -3.4e38,
      7.9,
      -8,
    ]);
    expect(sanitizeSamples(samples)).toBe(4);
    expect(Array.from(samples)).toEqual([
      0.5,
      0,
      -1.25,
      MAX_SAMPLE_MAGNITUDE,
      MAX_SAMPLE_MAGNITUDE,
      -MAX_SAMPLE_MAGNITUDE,
      Math.fround(7.9),
      -8,
    ]);
  });

  it('changes nothing in ordinary audio', () => {
    const samples = Float32Array.from({ length: 4096 }, (_, i) => Math.sin(i / 7) * 1.02);
    const before = Float32Array.from(samples);
    expect(sanitizeSamples(samples)).toBe(0);
    expect(samples).toEqual(before);
  });
});
