/**
 * Tempo checks on top of the beat tracker (ours or essentia.js's): octave correction and a precise period
 * from the onsets. A tracker can lock on twice the tempo of sparse material, and its tempo is quantised by
 * its frame rate (ours) or histogram (RhythmExtractor2013); the onsets we detect on the sample grid settle both.
 */

const MATCH_WINDOW_S = 0.06;

function supported(grid: number[], onsets: number[]): number {
  if (grid.length === 0) return 0;
  let hits = 0;
  let j = 0;
  for (const t of grid) {
    while (j < onsets.length && onsets[j] < t - MATCH_WINDOW_S) j++;
    if (j < onsets.length && Math.abs(onsets[j] - t) <= MATCH_WINDOW_S) hits++;
  }
  return hits / grid.length;
}

/**
 * Slope of times over beat indices, robust to an onset placed off its beat (a least-squares line tilts
 * towards such a point when it sits at either end): the median of the pairwise slopes (Theil–Sen). Long
 * grids use only the pairs half the points apart, which are the most precise and keep the cost linear.
 */
function robustSlope(xs: number[], ts: number[]): number {
  const slopes: number[] = [];
  const add = (i: number, j: number) => {
    const dx = xs[j] - xs[i];
    if (dx > 0) slopes.push((ts[j] - ts[i]) / dx);
  };
  const n = xs.length;
  if (n <= 64) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) add(i, j);
  } else {
    const h = n >> 1;
    for (let i = 0; i + h < n; i++) add(i, i + h);
  }
  if (slopes.length === 0) return 0;
  slopes.sort((a, b) => a - b);
  const m = slopes.length >> 1;
  return slopes.length % 2 ? slopes[m] : (slopes[m - 1] + slopes[m]) / 2;
}

export interface TempoEstimate {
  bpm: number;
  beats: number[];
  /** Share of beats that coincide with a detected onset (0…1): how audible the grid is. */
  support: number;
}

/**
 * 1. If fewer than 60% of the beats fall on onsets but every other beat (best phase) does for ≥ 90%, the
 *    tracker doubled the tempo: keep every other beat.
 * 2. Beats snapped to their onsets give the period by a robust slope through (beat index, time).
 */
export function refineTempo(bpm: number, beats: number[], onsets: number[]): TempoEstimate {
  if (beats.length < 2 || !(bpm > 0)) return { bpm, beats, support: supported(beats, onsets) };
  let grid = beats;
  let support = supported(grid, onsets);
  if (support < 0.6 && bpm / 2 >= 40) {
    const even = beats.filter((_, i) => i % 2 === 0);
    const odd = beats.filter((_, i) => i % 2 === 1);
    const [best, bestSupport] =
      supported(even, onsets) >= supported(odd, onsets)
        ? [even, supported(even, onsets)]
        : [odd, supported(odd, onsets)];
    if (bestSupport >= 0.9 && best.length >= 2) {
      grid = best;
      support = bestSupport;
    }
  }
  // The median interval is robust to a beat the tracker dropped or doubled (e.g. at a chunk boundary).
  const intervals = grid
    .slice(1)
    .map((t, i) => t - grid[i])
    .sort((a, b) => a - b);
  const period0 = intervals[intervals.length >> 1];
  const matched: number[] = [];
  let j = 0;
  for (const t of grid) {
    while (j < onsets.length && onsets[j] < t - MATCH_WINDOW_S) j++;
    if (j < onsets.length && Math.abs(onsets[j] - t) <= MATCH_WINDOW_S) matched.push(onsets[j]);
  }
  let period = period0;
  // Two passes: index the matched onsets by the current period, fit the slope, re-index with the fit.
  for (let pass = 0; pass < 2 && matched.length >= 3; pass++) {
    const xs = matched.map((t) => Math.round((t - matched[0]) / period));
    const slope = robustSlope(xs, matched);
    if (slope > 0) period = slope;
  }
  const refined = 60 / period;
  // Keep the tracker's own value when the grid is not audible enough to trust the fit.
  const finalBpm = support >= 0.5 ? refined : grid === beats ? bpm : 60 / period0;
  return { bpm: finalBpm, beats: grid, support };
}
