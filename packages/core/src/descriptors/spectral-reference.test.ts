import { describe, expect, it } from 'vitest';
import { frequencyBandsBank } from './filterbanks.ts';
import { hfcMasri, lowLevelFrames, powerCentroid } from './lowlevel.ts';

const SR = 44100;

function tones(parts: [number, number][]): Float32Array {
  const out = new Float32Array(SR);
  for (let i = 0; i < out.length; i++)
    for (const [f, a] of parts) out[i] += a * Math.sin((2 * Math.PI * f * i) / SR);
  return out;
}

function innerMean(series: Float32Array): number {
  const inner = series.slice(2, -2);
  return inner.reduce((x, y) => x + y, 0) / inner.length;
}

describe('spectral centroid and entropy as the reference extractor defines them', () => {
  it('powerCentroid scales the power-weighted bin index by Nyquist/(bins − 1)', () => {
    expect(powerCentroid(2, 2 * 10, 22050, 1025)).toBeCloseTo(10 * (22050 / 1024), 9);
    expect(powerCentroid(0, 0, 22050, 1025)).toBe(0);
  });
  it("hfcMasri weights each bin's power by its frequency in Hz (k × Nyquist/(bins − 1))", () => {
    expect(hfcMasri(3 * 10, 22050, 1025)).toBeCloseTo(30 * (22050 / 1024), 9);
    // A 1 kHz sine: HFC = 1000 Hz × its power, whatever the level.
    const wanted = new Set(['hfc', 'spectral_energy']);
    const { series } = lowLevelFrames(tones([[1000, 0.5]]), SR, wanted);
    const ratio = innerMean(series.scalar('hfc')) / innerMean(series.scalar('spectral_energy'));
    expect(ratio).toBeGreaterThan(990);
    expect(ratio).toBeLessThan(1010);
  });
  it('takes spectral crest and flatness of the Bark bands, as the reference (the barkbands_ values)', () => {
    const { series } = lowLevelFrames(
      tones([
        [300, 0.5],
        [2500, 0.1],
      ]),
      SR,
      new Set(['spectral_crest', 'spectral_flatness_db', 'barkbands_crest', 'barkbands_flatness_db']),
    );
    expect([...series.scalar('spectral_crest')]).toEqual([...series.scalar('barkbands_crest')]);
    expect([...series.scalar('spectral_flatness_db')]).toEqual([...series.scalar('barkbands_flatness_db')]);
    expect(innerMean(series.scalar('spectral_crest'))).toBeGreaterThan(5);
  });
  it('puts each Bark edge at its nearest bin, as Essentia FrequencyBands: 43 Hz is in the 50–100 Hz band', () => {
    const bank = frequencyBandsBank([0, 50, 100, 150], 44100, 2048);
    // Bins of 21.53 Hz: 50 Hz → 2.32 → bin 2, 100 Hz → 4.64 → bin 5, 150 Hz → 6.97 → bin 7.
    expect([...bank.first]).toEqual([0, 2, 5]);
    expect(bank.weights.map((w) => w.length)).toEqual([2, 3, 2]);
  });
  it('gives the first frame a flux against silence, as the reference Flux', () => {
    const signal = tones([[1000, 0.5]]);
    const flux = lowLevelFrames(signal, SR, new Set(['spectral_flux', 'spectral_energy'])).series;
    // Frame 0 (centred on sample 0, half zeros) against an all-zero spectrum: its own L2 norm.
    expect(flux.scalar('spectral_flux')[0]).toBeCloseTo(Math.sqrt(flux.scalar('spectral_energy')[0]), 4);
    expect(flux.scalar('spectral_flux')[0]).toBeGreaterThan(0.1);
  });
  it('weights the centroid by power: partials 1 and 0.5 at 1 and 3 kHz sit at 1.4 kHz, not 1.67', () => {
    const { series } = lowLevelFrames(
      tones([
        [1000, 0.5],
        [3000, 0.25],
      ]),
      SR,
      new Set(['spectral_centroid']),
    );
    expect(innerMean(series.scalar('spectral_centroid'))).toBeGreaterThan(1350);
    expect(innerMean(series.scalar('spectral_centroid'))).toBeLessThan(1450);
  });
  it('takes the entropy of the magnitudes (in bits): more partials, more entropy, level does not matter', () => {
    const wanted = new Set(['spectral_entropy']);
    const one = innerMean(lowLevelFrames(tones([[1000, 0.5]]), SR, wanted).series.scalar('spectral_entropy'));
    const four = innerMean(
      lowLevelFrames(
        tones([
          [500, 0.2],
          [1500, 0.2],
          [2500, 0.2],
          [3500, 0.2],
        ]),
        SR,
        wanted,
      ).series.scalar('spectral_entropy'),
    );
    // Four equal partials hold two more bits than one (a little less: each main lobe spreads over bins).
    expect(four - one).toBeGreaterThan(1.6);
    expect(four - one).toBeLessThan(2.1);
    const quiet = innerMean(
      lowLevelFrames(tones([[1000, 0.005]]), SR, wanted).series.scalar('spectral_entropy'),
    );
    expect(quiet).toBeCloseTo(one, 3);
  });
  it('counts spectral complexity as the peaks above 0.005 between 100 Hz and 5 kHz only', () => {
    const partials: [number, number][] = [
      [60, 0.3],
      [7000, 0.3],
      [9000, 0.3],
    ];
    for (let k = 1; k <= 10; k++) partials.push([400 * k, 0.05]);
    const { series } = lowLevelFrames(tones(partials), SR, new Set(['spectral_complexity']));
    expect(innerMean(series.scalar('spectral_complexity'))).toBe(10);
  });
});
