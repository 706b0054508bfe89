import { encodeJpeg, encodePng } from './raster.ts';
import { columnSpectra } from './spectra.ts';
import { renderSpectrogram } from './spectrogram.ts';
import { STORED_FILES, type StoredFileKind } from './stored-files.ts';
import { columnPeaks, renderWaveform } from './waveform.ts';

export type ImageKey = Extract<StoredFileKind, `waveform_${string}` | `spectral_${string}`>;

/** The contract's image sizes: `_m` 120×71, `_l` 900×201; waveforms PNG, spectrograms JPEG. */
export const IMAGE_SIZES = {
  m: { width: 120, height: 71 },
  l: { width: 900, height: 201 },
} as const;

export const IMAGE_FILES: Record<ImageKey, string> = {
  waveform_m: STORED_FILES.waveform_m.file,
  waveform_l: STORED_FILES.waveform_l.file,
  spectral_m: STORED_FILES.spectral_m.file,
  spectral_l: STORED_FILES.spectral_l.file,
};

export interface MonoSignal {
  samples: Float32Array;
  sampleRate: number;
}

export function peakAmplitude(samples: Float32Array): number {
  let peak = 0;
  for (let i = 0; i < samples.length; i++) {
    const a = Math.abs(samples[i]);
    if (a > peak) peak = a;
  }
  return peak;
}

/** The four images of a sound, encoded, from its mono signal. One FFT per column of each size. */
export async function renderImages(signal: MonoSignal): Promise<Record<ImageKey, Buffer>> {
  const peak = peakAmplitude(signal.samples);
  const result = {} as Record<ImageKey, Buffer>;
  for (const [size, { width, height }] of Object.entries(IMAGE_SIZES) as Array<
    ['m' | 'l', { width: number; height: number }]
  >) {
    const spectra = columnSpectra(signal.samples, signal.sampleRate, width);
    const waveform = renderWaveform(columnPeaks(signal.samples, width), spectra, width, height);
    const spectrogram = renderSpectrogram(spectra, peak, height);
    [result[`waveform_${size}`], result[`spectral_${size}`]] = await Promise.all([
      encodePng(waveform, width, height),
      encodeJpeg(spectrogram, width, height),
    ]);
  }
  return result;
}
