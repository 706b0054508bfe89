/**
 * `rhythm.beats_loudness` and `rhythm.beats_loudness_band_ratio` as the reference extractor computes them
 * (Essentia's BeatsLoudness with its defaults: SingleBeatLoudness, 100 ms beat window, 50 ms beat).
 */
import { blackmanHarris62, MagnitudeSpectrum } from './spectrum.ts';

/** The edges (Hz) of the six bands of the reference's BeatsLoudness (Scheirer's octaves above 400 Hz). */
export const BEAT_BAND_EDGES = [20, 150, 400, 800, 1600, 3200, 22000];

const WINDOW_S = 0.1;
const BEAT_S = 0.05;
/** The transform the 50 ms beat is zero-padded to (the reference transforms its 2206 samples as they are). */
const PADDED = 4096;

export interface BeatsLoudness {
  loudness: number[];
  bandRatios: number[][];
}

const spectra = new Map<number, { spectrum: MagnitudeSpectrum; beatSamples: number }>();

function spectrumFor(sampleRate: number) {
  let entry = spectra.get(sampleRate);
  if (!entry) {
    // An even number of samples, as the reference rounds its beat up to.
    const beatSamples = Math.trunc(BEAT_S * sampleRate) + (Math.trunc(BEAT_S * sampleRate) % 2);
    const window = new Float32Array(PADDED);
    window.set(blackmanHarris62(beatSamples));
    entry = { spectrum: new MagnitudeSpectrum(PADDED, window), beatSamples };
    spectra.set(sampleRate, entry);
  }
  return entry;
}

/**
 * Per beat (a single beat at 0 s when there are none, as the reference assumes): the slice from 50 ms
 * before to 100.1 ms after it (slid right to start at 0; a slice past the end of the sound gives no
 * value); in its first 100 ms the loudest sample starts the 50 ms beat, whose Blackman-Harris windowed
 * spectrum gives the loudness (its energy, Σ|X|²) and the share of that energy in each band. The beat is
 * zero-padded to 4096 points: the same spectrum sampled more densely, so the energy is rescaled by
 * beat/4096 (Parseval) and the band shares agree up to the band edges.
 */
export function beatsLoudness(
  signal: Float32Array,
  sampleRate: number,
  ticks: readonly number[],
): BeatsLoudness {
  const loudness: number[] = [];
  const bandRatios: number[][] = [];
  const { spectrum, beatSamples } = spectrumFor(sampleRate);
  const windowSamples = Math.trunc(WINDOW_S * sampleRate);
  const frame = new Float32Array(PADDED);
  const mag = new Float32Array(spectrum.bins);
  const last = spectrum.bins - 1;
  const edges = BEAT_BAND_EDGES.map((f) => Math.trunc((f / (sampleRate / 2)) * last + 0.5));
  for (const tick of ticks.length ? ticks : [0]) {
    let start = tick - WINDOW_S / 2;
    let end = tick + WINDOW_S / 2 + BEAT_S + 0.0001;
    if (start < 0) {
      end -= start;
      start = 0;
    }
    const from = Math.round(start * sampleRate);
    if (Math.round(end * sampleRate) > signal.length) continue;
    let peakAt = from;
    let peak = 0;
    for (let i = from; i < from + windowSamples; i++) {
      const p = signal[i] * signal[i];
      if (p > peak) {
        peak = p;
        peakAt = i;
      }
    }
    frame.fill(0);
    frame.set(signal.subarray(peakAt, peakAt + beatSamples));
    spectrum.compute(frame, mag);
    let total = 0;
    for (let k = 0; k <= last; k++) total += mag[k] * mag[k];
    const ratios: number[] = [];
    for (let b = 0; b + 1 < edges.length; b++) {
      let e = 0;
      for (let k = edges[b]; k <= Math.min(edges[b + 1], last); k++) e += mag[k] * mag[k];
      ratios.push(total * (beatSamples / PADDED) > 1e-10 ? e / total : 0);
    }
    loudness.push(total * (beatSamples / PADDED));
    bandRatios.push(ratios);
  }
  return { loudness, bandRatios };
}
