/**
 * Spectral contrast as the reference extractor computes `spectral_contrast_coeffs` and
 * `spectral_contrast_valleys` (Essentia's SpectralContrast with the Freesound settings: 6 bands from
 * 20 Hz, upper bound 11 kHz, neighbour ratio 0.4, static distribution 0.15).
 */

const f32 = Math.fround;

/** The first bin of the lowest band and the width (bins) of each band. */
export interface ContrastBands {
  start: number;
  widths: number[];
}

/**
 * Essentia's band layout, in its single-precision arithmetic: 15% of the bins below the upper bound are
 * shared equally by the bands (12 each at 44.1 kHz and 2048 points), the rest split logarithmically
 * between the lower bound and 85% of the upper bound — so the top band ends near 9.3 kHz, not 11 kHz.
 */
export function contrastBands(
  sampleRate: number,
  frameSize: number,
  bands = 6,
  lowHz = 20,
  highHz = 11000,
  staticDistribution = 0.15,
): ContrastBands {
  const partToScale = f32(1 - f32(staticDistribution));
  const binWidth = f32(sampleRate / frameSize);
  let lastBins = Math.trunc(f32(lowHz / binWidth));
  const start = lastBins;
  const totalBins = Math.trunc(f32(highHz / binWidth));
  const upper = f32(Math.trunc(f32(partToScale * totalBins)) * binWidth);
  const staticPerBand = Math.trunc(Math.trunc(f32(f32(1 - partToScale) * totalBins)) / bands);
  const ratioPerBand = f32(f32(upper / lowHz) ** f32(1 / bands));
  let freq = f32(lowHz);
  const widths: number[] = [];
  for (let i = 0; i < bands; i++) {
    freq = f32(freq * ratioPerBand);
    widths.push(Math.trunc(f32(f32(f32(freq / binWidth) - lastBins) + staticPerBand)));
    lastBins = Math.trunc(f32(freq / binWidth));
  }
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
  layout.widths.forEach((width, b) => {
    const n = Math.max(0, Math.min(width, magnitudes.length - at));
    const band = scratch.subarray(0, n);
    band.set(magnitudes.subarray(at, at + n));
    let mean = 0;
    for (let i = 0; i < n; i++) mean += band[i];
    if (width !== 0) mean /= width;
    mean += TINY;
    band.sort();
    const neighbours = Math.max(1, Math.trunc(0.4 * width));
    let low = 0;
    for (let i = 0; i < neighbours && i < n; i++) low += band[i];
    let high = 0;
    for (let i = width; i > width - neighbours && i - 1 < n && i > 0; i--) high += band[i - 1];
    const valley = low / neighbours + TINY;
    const peak = high / neighbours + TINY;
    coeffs[offset + b] = -((peak / valley) ** (1 / Math.log(mean)));
    valleys[offset + b] = Math.log(valley);
    at += width;
  });
}
