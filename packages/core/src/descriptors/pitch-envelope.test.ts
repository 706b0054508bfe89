import { describe, expect, it } from 'vitest';
import { pitchEnvelope } from './pitch-envelope.ts';

describe('pitchEnvelope (the reference’s pitch-envelope sfx descriptors)', () => {
  it('takes first maximum and minimum over the whole track, zeros included', () => {
    const e = pitchEnvelope([100, 300, 0, 300, 50]);
    expect(e.maxToTotal).toBeCloseTo(1 / 5);
    expect(e.minToTotal).toBeCloseTo(2 / 5);
    // Centroid over the frame index, normalized by n − 1.
    expect(e.centroid).toBeCloseTo((300 + 0 + 900 + 200) / 750 / 4);
  });

  it('splits the energy at the maximum, counted on both sides, after removing frames without pitch', () => {
    // Positive frames: 100, 300, 300, 50; first maximum at the second of them.
    const e = pitchEnvelope([100, 300, 0, 300, 50]);
    expect(e.afterMaxToBeforeMaxEnergyRatio).toBeCloseTo(
      (300 ** 2 + 300 ** 2 + 50 ** 2) / (100 ** 2 + 300 ** 2),
    );
    // A rising track: the maximum is last, so the ratio is (0, 1]; a falling one gives ≥ 1.
    expect(pitchEnvelope([100, 200, 400]).afterMaxToBeforeMaxEnergyRatio).toBeLessThanOrEqual(1);
    expect(pitchEnvelope([400, 200, 100]).afterMaxToBeforeMaxEnergyRatio).toBeGreaterThan(1);
  });

  it('is 0 where the reference has no value (empty, one frame, no positive pitch)', () => {
    expect(pitchEnvelope([])).toEqual({
      centroid: 0,
      maxToTotal: 0,
      minToTotal: 0,
      afterMaxToBeforeMaxEnergyRatio: 0,
    });
    expect(pitchEnvelope([0, 0, 0]).afterMaxToBeforeMaxEnergyRatio).toBe(0);
    expect(pitchEnvelope([0, 0, 0]).maxToTotal).toBe(0);
    expect(pitchEnvelope([220]).centroid).toBe(0);
  });
});
