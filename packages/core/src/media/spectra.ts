import FFT from 'fft.js';

export const MAX_FFT_SIZE = 2048;
const MIN_FFT_SIZE = 512;

/**
 * 2048 points (21.5 Hz bins at 44.1 kHz, as the established look uses) unless the columns are so
 * dense that such a window would smear a click across dozens of them: then about four columns' worth.
 */
export function fftSizeFor(samplesPerColumn: number): number {
  let size = MIN_FFT_SIZE;
  while (size < MAX_FFT_SIZE && size < 4 * samplesPerColumn) size *= 2;
  return size;
}

/** Hann window and its coherent gain (sum / 2 = the magnitude of a full-scale sine at its bin). */
function hann(size: number): { window: Float64Array; sineGain: number } {
  const window = new Float64Array(size);
  let sum = 0;
  for (let i = 0; i < size; i++) {
    window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size);
    sum += window[i];
  }
  return { window, sineGain: sum / 2 };
}

export interface ColumnSpectra {
  width: number;
  /** Bins per column (fftSize / 2 + 1). */
  bins: number;
  /** Column-major magnitudes, 1.0 = a full-scale sine. */
  magnitudes: Float32Array;
  /** Spectral centroid of each column in Hz (0 for a silent column). */
  centroids: Float32Array;
  sampleRate: number;
}

/**
 * One Hann-windowed FFT per image column, centred on the column's middle (zero-padded at the
 * edges): what both the spectrogram and the waveform colours are made of. Cost: `width` FFTs,
 * independent of the sound's length.
 */
export function columnSpectra(samples: Float32Array, sampleRate: number, width: number): ColumnSpectra {
  const n = samples.length;
  const fftSize = fftSizeFor(n / width);
  const fft = new FFT(fftSize);
  const { window, sineGain } = hann(fftSize);
  const bins = fftSize / 2 + 1;
  const frame = new Float64Array(fftSize);
  const out = fft.createComplexArray() as number[];
  const magnitudes = new Float32Array(width * bins);
  const centroids = new Float32Array(width);
  const binHz = sampleRate / fftSize;

  for (let x = 0; x < width; x++) {
    const centre = Math.floor(((x + 0.5) * n) / width);
    const start = centre - fftSize / 2;
    for (let i = 0; i < fftSize; i++) {
      const j = start + i;
      frame[i] = j >= 0 && j < n ? samples[j] * window[i] : 0;
    }
    fft.realTransform(out, frame);
    let weighted = 0;
    let total = 0;
    const base = x * bins;
    for (let k = 0; k < bins; k++) {
      const re = out[2 * k];
      const im = out[2 * k + 1];
      const magnitude = Math.sqrt(re * re + im * im) / sineGain;
      magnitudes[base + k] = magnitude;
      weighted += magnitude * k * binHz;
      total += magnitude;
    }
    centroids[x] = total > 1e-9 ? weighted / total : 0;
  }
  return { width, bins, magnitudes, centroids, sampleRate };
}
