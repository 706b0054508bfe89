import { createPeaks, type Peaks } from '../descriptors/peaks.ts';

/** Spectral peaks at the given frequencies (Hz) with the given magnitudes (1 each by default). */
export function peaksAt(freqs: number[], amps: number[] = freqs.map(() => 1)): Peaks {
  const p = createPeaks(Math.max(1, freqs.length));
  freqs.forEach((f, i) => {
    p.frequencies[i] = f;
    p.magnitudes[i] = amps[i];
  });
  p.count = freqs.length;
  return p;
}
