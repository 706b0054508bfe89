export type Rgb = readonly [number, number, number];

/** A 256-entry lookup table interpolated linearly between evenly spaced colour stops. */
export class Palette {
  readonly table: Uint8Array;

  constructor(stops: readonly Rgb[]) {
    this.table = new Uint8Array(256 * 3);
    for (let i = 0; i < 256; i++) {
      const position = (i / 255) * (stops.length - 1);
      const lower = Math.min(Math.floor(position), stops.length - 2);
      const t = position - lower;
      for (let c = 0; c < 3; c++) {
        this.table[i * 3 + c] = Math.round(stops[lower][c] * (1 - t) + stops[lower + 1][c] * t);
      }
    }
  }

  /** Writes the colour of `value` (0..1, clamped) into `out` at `offset`. */
  write(value: number, out: Uint8Array, offset: number): void {
    const index = Math.round(Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0)) * 255) * 3;
    out[offset] = this.table[index];
    out[offset + 1] = this.table[index + 1];
    out[offset + 2] = this.table[index + 2];
  }
}

/**
 * Colour stops of Freesound's long-standing "Freesound2" look (the values are facts about that
 * service's images, which the API's users know): waveform from deep blue (dull, low centroid) to
 * orange (bright); spectrogram from black through green and yellow to white.
 */
export const WAVEFORM_PALETTE = new Palette([
  [50, 0, 200],
  [0, 220, 80],
  [255, 224, 0],
  [255, 70, 0],
]);

export const SPECTROGRAM_PALETTE = new Palette([
  [0, 0, 0],
  [14, 17, 16],
  [40, 50, 76],
  [90, 180, 100],
  [224, 224, 44],
  [255, 60, 30],
  [255, 255, 255],
]);
