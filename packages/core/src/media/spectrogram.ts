import { SPECTROGRAM_PALETTE } from './palette.ts';
import type { ColumnSpectra } from './spectra.ts';

export const SPECTROGRAM_MIN_HZ = 100;
/** dB below the sound's own peak that map to black; 0 dB maps to white. */
export const SPECTROGRAM_RANGE_DB = 100;

/**
 * The spectrogram as RGB pixels: y is log-frequency from 100 Hz (bottom) to the Nyquist frequency
 * (top), interpolated between FFT bins; colour is magnitude in dB over a fixed range, relative to
 * the sound's peak sample so that a quiet recording is as readable as a loud one.
 */
export function renderSpectrogram(spectra: ColumnSpectra, peakAmplitude: number, height: number): Uint8Array {
  const { width, bins, magnitudes, sampleRate } = spectra;
  const nyquist = sampleRate / 2;
  const binHz = nyquist / (bins - 1);
  const reference = peakAmplitude > 0 ? peakAmplitude : 1;
  const logMin = Math.log10(SPECTROGRAM_MIN_HZ);
  const logSpan = Math.log10(nyquist) - logMin;

  // The fractional bin each row reads, computed once for all columns.
  const rowBin = new Float64Array(height);
  for (let y = 0; y < height; y++) {
    const fromBottom = height === 1 ? 0 : (height - 1 - y) / (height - 1);
    rowBin[y] = Math.min(bins - 1, 10 ** (logMin + fromBottom * logSpan) / binHz);
  }

  const pixels = new Uint8Array(width * height * 3);
  for (let x = 0; x < width; x++) {
    const base = x * bins;
    for (let y = 0; y < height; y++) {
      const position = rowBin[y];
      const lower = Math.floor(position);
      const upper = Math.min(bins - 1, lower + 1);
      const t = position - lower;
      const magnitude = magnitudes[base + lower] * (1 - t) + magnitudes[base + upper] * t;
      const db = 20 * Math.log10(magnitude / reference + 1e-12);
      SPECTROGRAM_PALETTE.write(1 + db / SPECTROGRAM_RANGE_DB, pixels, (y * width + x) * 3);
    }
  }
  return pixels;
}
