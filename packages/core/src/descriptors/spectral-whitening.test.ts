import { describe, expect, it } from 'vitest';
import { peaksAt } from '../testing/peaks.ts';
import { SpectralWhitening } from './spectral-whitening.ts';

const SR = 44100;
const BINS = 2049;

describe("SpectralWhitening as the reference's key extractor applies it", () => {
  it('levels peaks against the envelope: 0 dB at or above it, their distance within 30 dB, nothing below; then −20 dB per 4 kHz', () => {
    // A flat spectrum of 1: its envelope is 0 dB at every frequency.
    const spectrum = new Float32Array(BINS).fill(1);
    const whitening = new SpectralWhitening(BINS, SR, 3500);
    const peaks = peaksAt([1000, 1000, 2000, 2000, 400], [1, 2, 0.1, 0.01, 1]);
    whitening.apply(spectrum, peaks);
    const db = (m: number) => 20 * Math.log10(m);
    expect(db(peaks.magnitudes[0])).toBeCloseTo(-5, 4); // on the envelope, tilted 20·1000/4000 dB
    expect(db(peaks.magnitudes[1])).toBeCloseTo(-5, 4); // above it: 0 dB before the tilt
    expect(db(peaks.magnitudes[2])).toBeCloseTo(-20 - 10, 4); // 20 dB under it
    expect(db(peaks.magnitudes[3])).toBeCloseTo(-200 - 10, 2); // 40 dB under: more than 30, dropped
    expect(db(peaks.magnitudes[4])).toBeCloseTo(-2, 4);
  });
  it('reads the envelope from the energy around each 100 Hz point, interpolated between them', () => {
    // Energy 100 below 1 kHz and 1 above: the envelope falls from 20 dB to 0 dB around 1 kHz, so a peak of
    // 10 (20 dB) at 300 Hz sits on it and one at 3 kHz sits 20 dB over it.
    const spectrum = new Float32Array(BINS).fill(1);
    const binHz = SR / 2 / (BINS - 1);
    for (let k = 0; k * binHz < 1000; k++) spectrum[k] = 10;
    const peaks = peaksAt([300, 3000], [10, 10]);
    new SpectralWhitening(BINS, SR, 3500).apply(spectrum, peaks);
    expect(20 * Math.log10(peaks.magnitudes[0])).toBeCloseTo(-1.5, 4);
    expect(20 * Math.log10(peaks.magnitudes[1])).toBeCloseTo(-15, 4);
  });
  it('leaves peaks above 1.2 × maxHz − 100 Hz as they are and does nothing without peaks', () => {
    const spectrum = new Float32Array(BINS).fill(1);
    const peaks = peaksAt([4150], [0.001]);
    new SpectralWhitening(BINS, SR, 3500).apply(spectrum, peaks);
    expect(peaks.magnitudes[0]).toBe(0.001);
    const none = peaksAt([]);
    new SpectralWhitening(BINS, SR, 3500).apply(spectrum, none);
    expect(none.count).toBe(0);
  });
});
