import { describe, expect, it } from 'vitest';
import { contrastBands, spectralContrast } from './spectral-contrast.ts';

describe('spectral contrast as the reference extractor computes it', () => {
  it("uses the reference's bands: bins 1–15, 16–30, 31–56, 57–106, 107–219, 220–510 at 44.1 kHz / 2048 points", () => {
    expect(contrastBands(44100, 2048)).toEqual({ start: 1, widths: [15, 15, 26, 50, 113, 291] });
    // The same edges in Hz on a finer spectrum.
    expect(contrastBands(44100, 4096)).toEqual({ start: 2, widths: [30, 30, 52, 100, 226, 582] });
  });

  it('gives −(peak/valley)^(1/ln mean) and ln(valley) per band', () => {
    const layout = { start: 1, widths: [5] };
    const mag = new Float32Array([9, 0.1, 0.4, 0.2, 0.3, 0.05, 9]);
    const coeffs = new Float32Array(1);
    const valleys = new Float32Array(1);
    spectralContrast(mag, layout, new Float32Array(5), coeffs, valleys, 0);
    // Bins 1…5 sorted: 0.05 0.1 0.2 0.3 0.4; two neighbours (40% of 5) at each end.
    const valley = (0.05 + 0.1) / 2;
    const peak = (0.3 + 0.4) / 2;
    const mean = (0.05 + 0.1 + 0.2 + 0.3 + 0.4) / 5;
    expect(coeffs[0]).toBeCloseTo(-((peak / valley) ** (1 / Math.log(mean))), 5);
    expect(valleys[0]).toBeCloseTo(Math.log(valley), 5);
    // The input spectrum is left as it was (the band is sorted in scratch).
    expect(mag[2]).toBeCloseTo(0.4, 6);
  });

  it('gives −1 for a flat band and a value nearer 0 for a peaky one (quiet bands: mean < 1)', () => {
    const layout = { start: 0, widths: [10] };
    const run = (mag: number[]) => {
      const coeffs = new Float32Array(1);
      spectralContrast(new Float32Array(mag), layout, new Float32Array(10), coeffs, new Float32Array(1), 0);
      return coeffs[0];
    };
    const flat = run(Array(10).fill(0.01));
    const peaky = run([0.001, 0.001, 0.001, 0.001, 0.5, 0.001, 0.001, 0.001, 0.3, 0.001]);
    expect(flat).toBeCloseTo(-1, 6);
    expect(peaky).toBeGreaterThan(flat);
    expect(peaky).toBeLessThan(0);
  });
});
