/**
 * Essentia's SpectralWhitening, as the reference's KeyExtractor applies it to its spectral peaks before
 * the HPCP: a smooth spectral envelope is sampled every 100 Hz up to 1.2 × `maxHz` (each point the
 * energy-weighted mean energy of the bins around it, under a window from f − max(50, 0.34 f) to
 * f + max(50, 0.58 f) weighted (1 − |distance| / half-width)⁴), interpolated linearly between its points,
 * and every peak is re-levelled against it in amplitude dB: 0 dB at or above the envelope, its distance
 * below it within 30 dB, −200 dB (nothing) further down; then a tilt of −20 dB per 4 kHz. The reference's
 * step that would lift peaks 40 dB under the loudest is overwritten by the next one there, so it has no
 * effect here either. Peaks above 1.2 × `maxHz` − 100 Hz keep their magnitude.
 */

import type { Peaks } from './peaks.ts';

const ENVELOPE_STEP_HZ = 100;

/** Essentia's lin2db on a power: 10·log10, −100 dB below 1e-10. */
function powerDb(power: number): number {
  return power < 1e-10 ? -100 : 10 * Math.log10(power);
}

interface EnvelopePoint {
  /** First bin of the point's window and its weights (1 − |distance| / half-width)⁴, one per bin. */
  from: number;
  weights: Float64Array;
}

/**
 * Whitens peak magnitudes for one spectrum size: the envelope's windows and weights depend only on the
 * size, the sample rate and `maxHz`, so they are laid out once.
 */
export class SpectralWhitening {
  private readonly points: EnvelopePoint[] = [];
  private readonly envelopeDb: Float64Array;
  private readonly energy: Float64Array;
  private readonly top: number;

  /** `bins`: the magnitude spectra's length, from 0 Hz to sampleRate / 2. */
  constructor(bins: number, sampleRate: number, maxHz: number) {
    this.top = maxHz * 1.2;
    const nyquist = sampleRate / 2;
    let last = 0;
    for (let f = 0; f <= this.top && f <= nyquist; f += ENVELOPE_STEP_HZ) {
      const lo = f - Math.max(50, f * 0.34);
      const hi = f + Math.max(50, f * 0.58);
      // C++ int() of x + 0.5: truncation toward zero, as the reference rounds its bin indices.
      let b = Math.trunc((lo / nyquist) * (bins - 1) + 0.5);
      let e = Math.trunc((hi / nyquist) * (bins - 1) + 0.5);
      b = Math.min(bins - 1, Math.max(b, 0));
      e = Math.min(bins, Math.max(e, b + 1));
      const centre = b / 2 + e / 2;
      const half = e - centre;
      const weights = new Float64Array(e - b);
      for (let i = b; i < e; i++) weights[i - b] = (1 - Math.abs(i - centre) / half) ** 4;
      this.points.push({ from: b, weights });
      last = Math.max(last, e);
    }
    this.envelopeDb = new Float64Array(this.points.length);
    this.energy = new Float64Array(last);
  }

  /** Whitens `peaks.magnitudes` in place (linear in, linear out) against the envelope of `spectrum`. */
  apply(spectrum: Float32Array, peaks: Peaks): void {
    if (peaks.count === 0) return;
    const { points, envelopeDb, energy } = this;
    for (let i = 0; i < energy.length; i++) energy[i] = spectrum[i] * spectrum[i];
    const n = points.length;
    for (let p = 0; p < n; p++) {
      const { from, weights } = points[p];
      // The energy-weighted mean energy under the window: Σ E²·w / Σ E·w.
      let sum = 0;
      let norm = 0;
      for (let j = 0; j < weights.length; j++) {
        const ew = energy[from + j] * weights[j];
        sum += energy[from + j] * ew;
        norm += ew;
      }
      envelopeDb[p] = norm !== 0 ? sum / norm : sum;
    }
    envelopeDb[n - 1] = envelopeDb[n - 2];
    // The reference takes 2·lin2db(√E): 10·log10 E, and −200 dB where √E is under 1e-10.
    for (let p = 0; p < n; p++) envelopeDb[p] = 2 * powerDb(Math.sqrt(envelopeDb[p]));
    for (let p = 0; p < peaks.count; p++) {
      const freq = peaks.frequencies[p];
      if (freq > this.top - ENVELOPE_STEP_HZ) continue;
      const amp = 2 * powerDb(peaks.magnitudes[p]);
      const position = freq / ENVELOPE_STEP_HZ;
      const left = Math.min(n - 2, Math.floor(position));
      const env = envelopeDb[left] + (position - left) * (envelopeDb[left + 1] - envelopeDb[left]);
      const white = (amp > env ? 0 : amp > env - 30 ? amp - env : -200) - (20 * freq) / 4000;
      peaks.magnitudes[p] = 10 ** (white / 20);
    }
  }
}
