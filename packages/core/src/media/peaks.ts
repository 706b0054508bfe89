/** BBC audiowaveform's JSON data format (version 2), which peaks.js and waveform-data.js read. */
export interface AudiowaveformJson {
  version: 2;
  channels: 1;
  sample_rate: number;
  samples_per_pixel: number;
  bits: 8 | 16;
  /** Number of min/max pairs. */
  length: number;
  /** Interleaved min, max, min, max… as integers in the `bits` range. */
  data: number[];
}

/** peaks.js' smallest default zoom level is 512 samples per pixel; the data must be at least that fine. */
export const PEAKS_SAMPLES_PER_PIXEL = 512;

/**
 * Min/max pairs of the mono signal per `samplesPerPixel` samples. Values are scaled to the
 * integer range of `bits`, min rounded down and max up, so a quantised peak never looks smaller
 * than the real one.
 */
export function audiowaveformPeaks(
  samples: Float32Array,
  sampleRate: number,
  samplesPerPixel = PEAKS_SAMPLES_PER_PIXEL,
  bits: 8 | 16 = 8,
): AudiowaveformJson {
  const scale = bits === 8 ? 127 : 32767;
  const floor = -scale - 1;
  const length = Math.ceil(samples.length / samplesPerPixel);
  const data = new Array<number>(length * 2);
  for (let p = 0; p < length; p++) {
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    const end = Math.min(samples.length, (p + 1) * samplesPerPixel);
    for (let i = p * samplesPerPixel; i < end; i++) {
      const s = samples[i];
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    data[2 * p] = Math.max(floor, Math.min(scale, Math.floor(lo * scale)));
    data[2 * p + 1] = Math.max(floor, Math.min(scale, Math.ceil(hi * scale)));
  }
  return {
    version: 2,
    channels: 1,
    sample_rate: sampleRate,
    samples_per_pixel: samplesPerPixel,
    bits,
    length,
    data,
  };
}
