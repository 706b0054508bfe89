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

/** The extractor's settings: 6 bands from 20 Hz to 11 kHz, 15% of the bins shared out evenly. */
const LOW_HZ = 20;
const HIGH_HZ = 11000;
const BANDS = 6;
const STATIC_SHARE = 0.15;

/**
 * The bands as Essentia's SpectralContrast lays them out for a `frameSize`-point spectrum: from the bin
 * nearest 20 Hz; each band gets an equal share of 15% of the bins up to 11 kHz, plus the bins up to its
 * upper edge on a geometric ladder from 20 Hz to the frequency of 85% of those bins (edges rounded to
 * bins). At 44.1 kHz and 2048 points: start 1, widths 15, 17, 26, 49, 113, 291 (bins 1–510, 21.5 Hz to
 * 11 kHz); this reproduces the reference's per-band values to 4 decimals.
 */
export function contrastBands(sampleRate: number, frameSize: number): ContrastBands {
  const binHz = sampleRate / frameSize;
  const start = Math.round(LOW_HZ / binHz);
  const totalBins = Math.round(HIGH_HZ / binHz);
  const ladderTop = Math.round((1 - STATIC_SHARE) * totalBins) * binHz;
  const staticBins = Math.round((STATIC_SHARE * totalBins) / BANDS);
  const step = (ladderTop / LOW_HZ) ** (1 / BANDS);
  const widths: number[] = [];
  let previous = start;
  let edgeHz = LOW_HZ;
  for (let b = 0; b < BANDS; b++) {
    edgeHz *= step;
    widths.push(Math.round(edgeHz / binHz - previous + staticBins));
    previous = Math.round(edgeHz / binHz);
  }
  return { start, widths };
}

/** The reference's floor, added to every mean so that logarithms stay finite. */
const TINY = 1e-30;

/**
 * One frame's contrast and valley per band, written at `offset`. Per band: the mean of the lowest 40% of
 * its bins (valley) and of the highest 40% (peak), 40% rounded to the nearest bin; contrast = −(peak/valley)^(1/ln(band mean)), valley =
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
    const neighbours = Math.max(1, Math.round(0.4 * width));
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
