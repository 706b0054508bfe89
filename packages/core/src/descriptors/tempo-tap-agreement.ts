/**
 * Choosing among beat sequences from several onset functions by their mutual agreement, after the
 * reference's TempoTapMaxAgreement (Zapata et al. 2012, Holzapfel et al. 2012): for every pair, the beat
 * error of one sequence against the other is histogrammed (40 bins over ±half a beat) and the information
 * gain is log2(40) minus the larger of the two entropies; the sequence with the highest mean gain against
 * the others wins, and that gain is the confidence (0…5.32). Beats in the first 5 s are left out of the
 * comparison (so sounds shorter than that keep the first candidate, with confidence 0).
 */

const BINS = 40;
const MIN_TICK_S = 5;

/** Borders of the beat-error histogram, as the reference lays them out (38 borders, 39 bins). */
function histogramBorders(): number[] {
  const delta = Math.fround(1 / (BINS - 1));
  const centres = [-0.5];
  const last = Math.fround(0.5 - 1.5 * delta);
  for (let c = Math.fround(-0.5 + 1.5 * delta); c <= last; c = Math.fround(c + delta)) centres.push(c);
  centres.push(0.5);
  const borders: number[] = [];
  for (let i = 0; i + 1 < centres.length; i++) borders.push((centres[i] + centres[i + 1]) / 2);
  return borders;
}
const BORDERS = histogramBorders();

/** Index of the tick closest to x (the first one when the distances start growing). */
function closest(ticks: number[], x: number): number {
  let j = 0;
  let best = Math.abs(ticks[0] - x);
  while (j + 1 < ticks.length && Math.abs(ticks[j + 1] - x) < best) best = Math.abs(ticks[++j] - x);
  return j;
}

/**
 * Error of each beat of `b` against the nearest beat of `a`, relative to the neighbouring inter-beat
 * interval of `a` on the side the error lies (half a beat = ±0.5).
 */
export function beatErrors(a: number[], b: number[]): number[] {
  return b.map((t) => {
    const j = closest(a, t);
    const error = t - a[j];
    let interval: number;
    if (j === 0) interval = 0.5 * (a[1] - a[0]);
    else if (j === a.length - 1) interval = 0.5 * (a[j] - a[j - 1]);
    else if (error < 0) interval = 0.5 * (a[j] - a[j - 1]);
    else interval = 0.5 * (a[j + 1] - a[j]);
    return (0.5 * error) / interval;
  });
}

/** Entropy (bits) of the beat errors wrapped into [−0.5, 0.5), histogrammed; the two end bins are one. */
export function errorEntropy(errors: number[]): number {
  const counts = new Array<number>(BORDERS.length + 1).fill(0);
  for (const e0 of errors) {
    // C's fmod keeps the dividend's sign.
    const e = ((e0 + 0.5) % 1) - 0.5;
    let b = 0;
    while (b < BORDERS.length && e >= BORDERS[b]) b++;
    counts[b]++;
  }
  counts[0] += counts.pop() as number;
  const total = counts.reduce((s, c) => s + c, 0);
  let h = 0;
  if (total > 0)
    for (const c of counts) {
      const p = c / total;
      if (p > 0) h -= p * Math.log2(p);
    }
  return h;
}

/** Information gain between two beat sequences (0 when either has fewer than two beats). */
export function beatInfoGain(a: number[], b: number[]): number {
  if (a.length < 2 || b.length < 2) return 0;
  const forward = errorEntropy(beatErrors(a, b));
  const backward = errorEntropy(beatErrors(b, a));
  return Math.log2(BINS) - Math.max(forward, backward);
}

/** The candidate with the most mutual agreement, and its mean information gain. */
export function maxAgreement(candidates: number[][]): { ticks: number[]; confidence: number } {
  if (candidates.length === 0) return { ticks: [], confidence: 0 };
  const late = candidates.map((c) => c.filter((t) => t >= MIN_TICK_S));
  const n = candidates.length;
  const gain: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) gain[i][j] = gain[j][i] = beatInfoGain(late[i], late[j]);
  let best = 0;
  let bestMean = -1;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let j = 0; j < n; j++) if (j !== i) sum += gain[i][j];
    const mean = n > 1 ? sum / (n - 1) : 0;
    if (mean > bestMean) {
      bestMean = mean;
      best = i;
    }
  }
  return { ticks: candidates[best], confidence: Math.max(0, bestMean) };
}
