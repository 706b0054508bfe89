import { realSamples } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from './analyze-file.ts';
import {
  bandDb,
  ERB_BANDS,
  ERB_HIGH_HZ,
  ERB_LOW_HZ,
  erbCentreFrequencies,
  GFCC_COEFFICIENTS,
  gammatoneBank,
} from './gammatone.ts';
import { lowLevelFrames } from './lowlevel.ts';

const SR = 44100;
const FFT = 2048;
const ERB_RATE_OFFSET = 9.26449 * 24.7;

function sine(freq: number, amplitude: number, seconds = 1): Float32Array {
  const out = new Float32Array(Math.round(SR * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * freq * i) / SR);
  return out;
}

/** The mean of frame vectors, leaving out the two edge frames on each side (zero-padded). */
function innerMean(data: Float32Array, dims: number): number[] {
  const frames = data.length / dims;
  const mean = new Array<number>(dims).fill(0);
  for (let f = 2; f < frames - 2; f++) for (let d = 0; d < dims; d++) mean[d] += data[f * dims + d];
  return mean.map((v) => v / (frames - 4));
}

describe('ERB bands as the reference extractor configures them', () => {
  it('spaces 18 centres from 26 Hz to one step below 9795 Hz, equally on the ERB-rate scale', () => {
    const centres = erbCentreFrequencies(ERB_BANDS, ERB_LOW_HZ, ERB_HIGH_HZ);
    expect(centres).toHaveLength(18);
    expect(centres[0]).toBeCloseTo(26, 6);
    expect(centres[17]).toBeLessThan(9795);
    const steps = centres
      .slice(1)
      .map((cf, i) => Math.log(cf + ERB_RATE_OFFSET) - Math.log(centres[i] + ERB_RATE_OFFSET));
    for (const s of steps) expect(s).toBeCloseTo(steps[0], 9);
    // The step that would follow the last centre lands on the high bound.
    expect(Math.exp(Math.log(centres[17] + ERB_RATE_OFFSET) + steps[0]) - ERB_RATE_OFFSET).toBeCloseTo(
      9795,
      6,
    );
  });

  it('peaks each band near its centre frequency and widens the bands with frequency', () => {
    const bank = gammatoneBank(ERB_BANDS, ERB_LOW_HZ, ERB_HIGH_HZ, SR, FFT);
    const binHz = SR / FFT;
    let previousWidth = 0;
    bank.centres.forEach((cf, b) => {
      const w = bank.weights[b];
      let peak = 0;
      for (let j = 1; j < w.length; j++) if (w[j] > w[peak]) peak = j;
      expect(Math.abs((bank.first[b] + peak) * binHz - cf)).toBeLessThan(Math.max(1.5 * binHz, 0.02 * cf));
      let above = 0;
      for (let j = 0; j < w.length; j++) if (w[j] > w[peak] / 2) above++;
      // The lowest band (26 Hz) runs into 0 Hz, so the widening is checked from the second band on.
      if (b > 1) expect(above).toBeGreaterThanOrEqual(previousWidth);
      previousWidth = above;
    });
  });

  it('puts a sine in the band centred on it and reads the power spectrum (4× the bands for 2× the level)', () => {
    const centres = erbCentreFrequencies(ERB_BANDS, ERB_LOW_HZ, ERB_HIGH_HZ);
    const wanted = new Set(['erbbands', 'gfcc']);
    const loud = lowLevelFrames(sine(centres[9], 0.4), SR, wanted).series;
    const quiet = lowLevelFrames(sine(centres[9], 0.2), SR, wanted).series;
    const loudBands = innerMean(loud.vector('erbbands', ERB_BANDS), ERB_BANDS);
    const quietBands = innerMean(quiet.vector('erbbands', ERB_BANDS), ERB_BANDS);
    expect(loudBands.indexOf(Math.max(...loudBands))).toBe(9);
    for (let b = 0; b < ERB_BANDS; b++) expect(loudBands[b] / quietBands[b]).toBeCloseTo(4, 2);
    // dbamp on power bands: +6 dB of level is +12.04 dB in every band, all of it in the DCT's first term.
    const loudGfcc = innerMean(loud.vector('gfcc', GFCC_COEFFICIENTS), GFCC_COEFFICIENTS);
    const quietGfcc = innerMean(quiet.vector('gfcc', GFCC_COEFFICIENTS), GFCC_COEFFICIENTS);
    expect(loudGfcc[0] - quietGfcc[0]).toBeCloseTo(20 * Math.log10(4) * Math.sqrt(ERB_BANDS), 1);
    for (let c = 1; c < GFCC_COEFFICIENTS; c++) expect(loudGfcc[c]).toBeCloseTo(quietGfcc[c], 2);
  });

  it('treats digital silence as the reference does: faint flat noise in the bands, −200 dB in the GFCC', () => {
    const { series } = lowLevelFrames(
      new Float32Array(SR),
      SR,
      new Set(['erbbands', 'gfcc', 'erbbands_crest']),
    );
    const gfcc = series.vector('gfcc', GFCC_COEFFICIENTS);
    // Every band under the 1e-10 floor: the first coefficient is −200·√18 (the reference's minimum on
    // recordings with digital silence, e.g. elec_chime), the others 0.
    expect(gfcc[0]).toBeCloseTo(-200 * Math.sqrt(ERB_BANDS), 3);
    for (let c = 1; c < GFCC_COEFFICIENTS; c++) expect(Math.abs(gfcc[c])).toBeLessThan(1e-3);
    const bands = series.vector('erbbands', ERB_BANDS).subarray(0, ERB_BANDS);
    for (const v of bands) {
      expect(v).toBeGreaterThan(0);
      expect(v).toBeLessThan(1e-10);
    }
    // Bands of flat noise grow with their width, so the crest is that of the widths, not 0.
    expect(series.scalar('erbbands_crest')[0]).toBeGreaterThan(1.5);
    expect(bandDb(1e-11)).toBe(-200);
    expect(bandDb(1)).toBe(0);
  });

  it('agrees in value with the reference extractor on a real recording (bd_808)', async () => {
    const sample = realSamples().find((s) => s.name === 'bd_808');
    if (!sample) throw new Error('bd_808 missing from the reference recordings');
    const { variantA } = await analyzeFile(sample.file);
    const ours = variantA.lowlevel as Record<string, Record<string, number | number[]>>;
    const ref = sample.reference.lowlevel as Record<string, Record<string, number | number[]>>;
    const oursBands = ours.erbbands.mean as number[];
    const refBands = ref.erbbands.mean as number[];
    // Within 2% per band (the lowest band's centre gain is computed in float by the reference).
    for (const [b, v] of oursBands.entries()) expect(Math.abs(v / refBands[b] - 1)).toBeLessThan(0.02);
    const refGfcc = ref.gfcc.mean as number[];
    for (const [c, v] of (ours.gfcc.mean as number[]).entries())
      expect(Math.abs(v - refGfcc[c])).toBeLessThan(1);
    for (const stat of ['crest', 'flatness_db', 'spread', 'skewness', 'kurtosis']) {
      const name = `erbbands_${stat}`;
      expect(Math.abs((ours[name].mean as number) / (ref[name].mean as number) - 1)).toBeLessThan(0.02);
    }
  }, 60_000);
});
