import { describe, expect, it } from 'vitest';
import { columnMeans, referenceRecording } from '../testing/reference-recording.ts';
import { lowLevelFrames } from './lowlevel.ts';
import { contrastBands, spectralContrast } from './spectral-contrast.ts';

describe('spectral contrast as the reference extractor computes it', () => {
  it("lays the bands out as Essentia's SpectralContrast: bins 1–15, 16–32, 33–58, 59–107, 108–220, 221–511 at 44.1 kHz / 2048 points", () => {
    expect(contrastBands(44100, 2048)).toEqual({ start: 1, widths: [15, 17, 26, 49, 113, 291] });
    // The same rule on a finer spectrum: each edge rounded to its own bins, not the coarse edges doubled.
    expect(contrastBands(44100, 4096)).toEqual({ start: 2, widths: [29, 35, 52, 98, 226, 583] });
  });

  it('rounds 40% of a band to the nearest bin: 7 of 17 bins at each end, not 6', () => {
    const layout = { start: 0, widths: [17] };
    // Ten bins at 1, seven at 100: the seven loudest are all 100 only if 7 neighbours are taken.
    const mag = new Float32Array([...Array(10).fill(1), ...Array(7).fill(100)]);
    const coeffs = new Float32Array(1);
    const valleys = new Float32Array(1);
    spectralContrast(mag, layout, new Float32Array(17), coeffs, valleys, 0);
    const mean = (10 + 700) / 17;
    expect(coeffs[0]).toBeCloseTo(-(100 ** (1 / Math.log(mean))), 4);
    expect(valleys[0]).toBeCloseTo(0, 6);
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

describe('spectral contrast on real recordings, against the reference extractor', () => {
  // Golden values: the per-band means native Essentia wrote (a kick, a drum loop, a pitched hum).
  it.each(['bd_808', 'loop_amen_full', 'ambi_glass_hum'])(
    '%s: the mean coefficient and valley of every band agree within 0.001',
    async (name) => {
      const { reference, samples, sampleRate } = await referenceRecording(name);
      const wanted = new Set(['spectral_contrast_coeffs', 'spectral_contrast_valleys']);
      const { series } = lowLevelFrames(samples, sampleRate, wanted);
      const lowlevel = reference.lowlevel as Record<string, { mean: number[] }>;
      for (const key of wanted) {
        columnMeans(series.vector(key, 6), 6).forEach((m, b) => {
          expect(Math.abs(m - lowlevel[key].mean[b])).toBeLessThan(1e-3);
        });
      }
    },
    60_000,
  );
});
