/** Rhythm descriptors derived from the beat grid (the grid itself comes from beat-tracker.ts or essentia.js). */

export interface BpmHistogramPeaks {
  histogram: number[];
  firstPeakBpm: number;
  firstPeakWeight: number;
  firstPeakSpread: number;
  secondPeakBpm: number;
  secondPeakWeight: number;
  secondPeakSpread: number;
}

/** Bins of the histogram: 0 … 249 BPM (the reference's maxBPM). */
const HISTOGRAM_BINS = 250;
/** A peak's weight sums its bin and one neighbour each side; its spread reads ±4 bins. */
const WEIGHT_HALF_WIDTH = 1;
const SPREAD_HALF_WIDTH = 4;

/**
 * The reference's BpmHistogramDescriptors on the beat intervals (s): intervals shorter than 60/250 s are
 * dropped, the rest become tempi 60/interval, counted in one-BPM bins (round, the top bin takes anything
 * faster) and normalized to sum 1. Two peaks, each the highest bin left (the first on a tie): weight = the
 * bin plus its two neighbours; spread = 1 − weight / the sum of the ±4 bins around it, which are then
 * cleared before the next peak is looked for (so with every bin cleared the second peak is bin 0, weight 0).
 */
export function bpmHistogram(intervals: number[]): BpmHistogramPeaks {
  const histogram = new Array<number>(HISTOGRAM_BINS).fill(0);
  const tempi = intervals
    .filter((interval) => interval >= 60 / HISTOGRAM_BINS)
    .map((interval) => 60 / interval);
  if (tempi.length === 0)
    return {
      histogram,
      firstPeakBpm: 0,
      firstPeakWeight: 0,
      firstPeakSpread: 0,
      secondPeakBpm: 0,
      secondPeakWeight: 0,
      secondPeakSpread: 0,
    };
  // Math.round rounds halves up, as C's round does for positive values.
  for (const bpm of tempi) histogram[Math.min(HISTOGRAM_BINS - 1, Math.round(bpm))]++;
  for (let i = 0; i < HISTOGRAM_BINS; i++) histogram[i] /= tempi.length;
  const weights = [...histogram];
  const peak = () => {
    let at = 0;
    for (let i = 1; i < HISTOGRAM_BINS; i++) if (weights[i] > weights[at]) at = i;
    let weight = weights[at];
    if (at > 0) weight += weights[at - WEIGHT_HALF_WIDTH];
    if (at < HISTOGRAM_BINS - 1) weight += weights[at + WEIGHT_HALF_WIDTH];
    let around = 0;
    for (
      let i = Math.max(0, at - SPREAD_HALF_WIDTH);
      i <= Math.min(HISTOGRAM_BINS - 1, at + SPREAD_HALF_WIDTH);
      i++
    ) {
      around += weights[i];
      weights[i] = 0;
    }
    return { bpm: at, weight, spread: around > 0 ? 1 - weight / around : 0 };
  };
  const first = peak();
  const second = peak();
  return {
    histogram,
    firstPeakBpm: first.bpm,
    firstPeakWeight: first.weight,
    firstPeakSpread: first.spread,
    secondPeakBpm: second.bpm,
    secondPeakWeight: second.weight,
    secondPeakSpread: second.spread,
  };
}
