import { WAVEFORM_PALETTE } from './palette.ts';
import type { ColumnSpectra } from './spectra.ts';

export const CENTROID_MIN_HZ = 100;
export const CENTROID_MAX_HZ = 22_050;

export interface ColumnPeaks {
  min: Float32Array;
  max: Float32Array;
}

/**
 * Min and max of the samples under each of `width` columns. Columns narrower than a sample take
 * the nearest sample, so a very short sound still draws a continuous line.
 */
export function columnPeaks(samples: Float32Array, width: number): ColumnPeaks {
  const min = new Float32Array(width);
  const max = new Float32Array(width);
  const n = samples.length;
  for (let x = 0; x < width; x++) {
    const from = Math.floor((x * n) / width);
    const to = Math.max(from + 1, Math.floor(((x + 1) * n) / width));
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = from; i < to && i < n; i++) {
      const s = samples[i];
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    min[x] = Number.isFinite(lo) ? lo : 0;
    max[x] = Number.isFinite(hi) ? hi : 0;
  }
  return { min, max };
}

/** Position of a centroid on the colour scale: log-frequency, 100 Hz → 0, 22.05 kHz → 1. */
export function centroidToUnit(hz: number): number {
  if (hz <= CENTROID_MIN_HZ) return 0;
  const unit = Math.log10(hz / CENTROID_MIN_HZ) / Math.log10(CENTROID_MAX_HZ / CENTROID_MIN_HZ);
  return Math.min(1, unit);
}

const BACKGROUND = 0;
const ZERO_LINE = 40;

/**
 * The waveform image as RGB pixels: each column a vertical bar from min to max (full scale = full
 * height, so quiet sounds look quiet), joined to its neighbour so steep edges stay continuous, its
 * ends anti-aliased, coloured by the column's spectral centroid (dull = blue, bright = orange).
 */
export function renderWaveform(
  peaks: ColumnPeaks,
  spectra: ColumnSpectra,
  width: number,
  height: number,
): Uint8Array {
  const pixels = new Uint8Array(width * height * 3).fill(BACKGROUND);
  // Continuous y: +1 is the top edge of row 0, -1 the bottom edge of the last row.
  const mid = height / 2;
  const zeroRow = Math.floor(mid);
  for (let x = 0; x < width; x++)
    pixels.fill(ZERO_LINE, (zeroRow * width + x) * 3, (zeroRow * width + x) * 3 + 3);

  const colour = new Uint8Array(3);
  const toY = (amplitude: number) => mid - Math.max(-1, Math.min(1, amplitude)) * mid;
  let previousTop = toY(0);
  let previousBottom = previousTop;
  for (let x = 0; x < width; x++) {
    if (peaks.max[x] === 0 && peaks.min[x] === 0) {
      // Digital silence keeps just the dim zero line.
      previousTop = previousBottom = mid;
      continue;
    }
    let top = toY(peaks.max[x]);
    let bottom = toY(peaks.min[x]);
    // Join to the previous column: a jump between columns is drawn, not left as a gap.
    const joinedTop = Math.min(top, previousBottom);
    const joinedBottom = Math.max(bottom, previousTop);
    previousTop = top;
    previousBottom = bottom;
    top = joinedTop;
    bottom = joinedBottom;
    // A bar is at least one pixel tall, centred on its value.
    if (bottom - top < 1) {
      const centre = (top + bottom) / 2;
      top = centre - 0.5;
      bottom = centre + 0.5;
    }
    WAVEFORM_PALETTE.write(centroidToUnit(spectra.centroids[x]), colour, 0);
    const firstRow = Math.max(0, Math.floor(top));
    const lastRow = Math.min(height - 1, Math.ceil(bottom) - 1);
    for (let y = firstRow; y <= lastRow; y++) {
      const coverage = Math.min(1, Math.min(y + 1, bottom) - Math.max(y, top));
      const offset = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        pixels[offset + c] = Math.round(colour[c] * coverage + pixels[offset + c] * (1 - coverage));
      }
    }
  }
  return pixels;
}
