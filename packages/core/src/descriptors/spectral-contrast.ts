/**
 * Spectral contrast as the reference extractor computes `spectral_contrast_coeffs` and
 * `spectral_contrast_valleys` (Essentia's SpectralContrast with the Freesound settings: 6 bands from
 * 20 Hz to 11 kHz, neighbour ratio 0.4).
 */

import { selectKth } from './select-kth.ts';

/** The first bin of the lowest band and the width (bins) of each band. */
export interface ContrastBands {
  start: number;
  widths: number[];
}

/**
 * The reference's bands at 44.1 kHz and 2048 points: bins 1–15, 16–30, 31–56, 57–106, 107–219, 220–510
 * (21.5 Hz to 11 kHz). Read off the reference's own values: band 0 as bins 1–15 reproduces its mean
 * coefficient within 0.001 on the 17 mono calibration recordings, and each further width is the one
 * that fits its band best. Essentia's current source lays the bands out otherwise (from bin 0, 14, 17,
 * 25, 47, 112 and 290 bins, the top one ending near 9.3 kHz: coefficient ρ 0.96 and filter agreement
 * 0.30 against the reference's values, the layout below 0.99 and 0.65); the extractor build that wrote
 * the reference values is older.
 */
const REFERENCE_BANDS: ContrastBands = { start: 1, widths: [15, 15, 26, 50, 113, 291] };
const REFERENCE_BIN_HZ = 44100 / 2048;

/** The reference's bands for a spectrum of `frameSize` points at `sampleRate` (same edges in Hz). */
export function contrastBands(sampleRate: number, frameSize: number): ContrastBands {
  const binHz = sampleRate / frameSize;
  if (binHz === REFERENCE_BIN_HZ) return REFERENCE_BANDS;
  const toBin = (referenceBin: number) => Math.max(0, Math.round((referenceBin * REFERENCE_BIN_HZ) / binHz));
  let edge = REFERENCE_BANDS.start;
  const start = toBin(edge);
  let at = start;
  const widths = REFERENCE_BANDS.widths.map((w) => {
    edge += w;
    const next = Math.max(at + 1, toBin(edge));
    const width = next - at;
    at = next;
    return width;
  });
  return { start, widths };
}

/** The reference's floor, added to every mean so that logarithms stay finite. */
const TINY = 1e-30;

/**
 * One frame's contrast and valley per band, written at `offset`. Per band: the mean of the lowest 40% of
 * its bins (valley) and of the highest 40% (peak); contrast = −(peak/valley)^(1/ln(band mean)), valley =
 * ln(valley). `scratch` must hold the widest band.
 */
export function spectralContrast(
  magnitudes: Float32Array,
  layout: ContrastBands,
  scratch: Float32Array,
  coeffs: Float32Array,
  valleys: Float32Array,
  offset: number,
): void {
  let at = layout.start;
  for (let b = 0; b < layout.widths.length; b++) {
    const width = layout.widths[b];
    const n = Math.max(0, Math.min(width, magnitudes.length - at));
    const band = scratch.subarray(0, n);
    band.set(magnitudes.subarray(at, at + n));
    let mean = 0;
    for (let i = 0; i < n; i++) mean += band[i];
    if (width !== 0) mean /= width;
    mean += TINY;
    const neighbours = Math.max(1, Math.trunc(0.4 * width));
    // Only which bins are the lowest and the highest `neighbours` matters (the reference sorts the band):
    // two selections put them at the ends.
    if (n > 1) {
      selectKth(band, Math.min(neighbours, n) - 1, 0, n - 1);
      if (n - neighbours > neighbours - 1) selectKth(band, n - neighbours, neighbours, n - 1);
    }
    let low = 0;
    for (let i = 0; i < neighbours && i < n; i++) low += band[i];
    let high = 0;
    for (let i = width; i > width - neighbours && i - 1 < n && i > 0; i--) high += band[i - 1];
    const valley = low / neighbours + TINY;
    const peak = high / neighbours + TINY;
    coeffs[offset + b] = -((peak / valley) ** (1 / Math.log(mean)));
    valleys[offset + b] = Math.log(valley);
    at += width;
  }
}
