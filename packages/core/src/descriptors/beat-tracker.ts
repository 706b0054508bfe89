/**
 * Our beat tracker (the default rhythm backend): tempo from the autocorrelation of an onset-novelty
 * curve under a log-normal tempo prior, beats by dynamic programming (after Ellis 2007, "Beat tracking by
 * dynamic programming"). The novelty is the low-level frame loop's onset strength (rectified log-spectral
 * flux of the shared FFT), so rhythm costs no transform of its own. tempo.ts then checks the octave and
 * fits a precise period on the sample-accurate onsets.
 */

export const MIN_BPM = 40;
export const MAX_BPM = 208;
/** Centre and width (octaves) of the tempo prior: most music sits near 120 BPM. */
const PRIOR_BPM = 120;
const PRIOR_OCTAVES = 1;
/** How strongly the DP holds the period (Ellis's "tightness"): cost = TIGHTNESS·log²(interval/period). */
const TIGHTNESS = 100;
/** The faster octave replaces the chosen period when its autocorrelation is at least this share of it. */
const HALF_PERIOD_SHARE = 0.9;

/**
 * Novelty for tempo and beats: the onset strength minus its local mean over about one second, half-wave
 * rectified and divided by its standard deviation, so steady texture and overall level drop out.
 */
export function noveltyCurve(onsetStrength: Float32Array, framesPerSecond: number): Float32Array {
  const n = onsetStrength.length;
  const out = new Float32Array(n);
  const radius = Math.max(1, Math.round(framesPerSecond / 2));
  let sum = 0;
  let lo = 0;
  let hi = -1;
  for (let i = 0; i < n; i++) {
    // Running window [i − radius, i + radius] clipped to the signal.
    while (hi < Math.min(n - 1, i + radius)) sum += onsetStrength[++hi];
    while (lo < i - radius) sum -= onsetStrength[lo++];
    const mean = sum / (hi - lo + 1);
    out[i] = Math.max(0, onsetStrength[i] - mean);
  }
  let sq = 0;
  for (let i = 0; i < n; i++) sq += out[i] * out[i];
  const sd = Math.sqrt(sq / Math.max(1, n));
  if (sd > 0) for (let i = 0; i < n; i++) out[i] /= sd;
  return out;
}

/** Log-normal prior weight of a beat period given in frames. */
function tempoPrior(periodFrames: number, framesPerSecond: number): number {
  const bpm = (60 * framesPerSecond) / periodFrames;
  return Math.exp(-0.5 * (Math.log2(bpm / PRIOR_BPM) / PRIOR_OCTAVES) ** 2);
}

/**
 * Beat period in frames (fractional), or 0 when there is no periodicity: the lag in 40–208 BPM that
 * maximizes prior × autocorrelation of the novelty, refined to the centroid of the peak.
 */
export function estimatePeriod(novelty: Float32Array, framesPerSecond: number): number {
  const n = novelty.length;
  const minLag = Math.max(1, Math.floor((60 * framesPerSecond) / MAX_BPM));
  const maxLag = Math.min(n - 1, Math.ceil((60 * framesPerSecond) / MIN_BPM));
  if (maxLag <= minLag) return 0;
  // Autocorrelation two lags beyond the range on each side, for the three-lag sums below.
  const r = new Float64Array(maxLag + 3);
  for (let lag = Math.max(0, minLag - 2); lag <= maxLag + 2 && lag < n; lag++) {
    let acc = 0;
    for (let i = lag; i < n; i++) acc += novelty[i] * novelty[i - lag];
    // Unbiased: longer lags overlap fewer frames.
    r[lag] = acc / (n - lag);
  }
  // A period between two lags splits its peak over both, a period twice as long may land on one: the sum
  // over three neighbouring lags keeps every period's whole peak, so the octaves compete fairly.
  const s = new Float64Array(maxLag + 2);
  for (let lag = Math.max(1, minLag - 1); lag <= maxLag + 1; lag++)
    s[lag] = r[lag - 1] + r[lag] + (lag + 1 < r.length ? r[lag + 1] : 0);
  let best = -1;
  let bestScore = 0;
  for (let lag = minLag; lag <= maxLag; lag++) {
    // Only local maxima of the autocorrelation are periods; a slope would just follow the prior.
    if (s[lag] < s[lag - 1] || s[lag] < s[lag + 1]) continue;
    const score = s[lag] * tempoPrior(lag, framesPerSecond);
    if (score > bestScore) {
      bestScore = score;
      best = lag;
    }
  }
  if (best < 0) return 0;
  // Every beat of a pulse at period τ is also a beat at 2τ, so an even pulse (a click track) correlates as
  // well at 2τ as at τ and the prior alone may pick the slower octave. The faster one wins when it holds
  // nearly all the strength; a drum pattern whose off-beats are only hats keeps its quarter notes.
  for (;;) {
    const half = Math.round(best / 2);
    if (half < minLag) break;
    let h = half;
    for (const lag of [half - 1, half + 1]) if (lag >= minLag && s[lag] > s[h]) h = lag;
    if (s[h] < HALF_PERIOD_SHARE * s[best]) break;
    best = h;
  }
  // The period is the centroid of the peak's three lags: a period between two lags shares its mass.
  let mass = 0;
  let moment = 0;
  for (let lag = best - 1; lag <= best + 1; lag++) {
    const v = Math.max(0, r[lag]);
    mass += v;
    moment += v * lag;
  }
  return mass > 0 ? moment / mass : best;
}

/**
 * Beat frames by dynamic programming: each frame's best score is its novelty plus the best earlier
 * beat's score minus TIGHTNESS·log²(gap/period), over gaps of period/2 … 2·period; the path is traced back
 * from the best-scoring frame. Beats at either end with almost no novelty (leading or trailing silence)
 * are dropped.
 */
export function placeBeats(novelty: Float32Array, period: number): number[] {
  const n = novelty.length;
  if (!(period > 0) || n === 0) return [];
  const score = new Float64Array(n);
  const back = new Int32Array(n).fill(-1);
  const minGap = Math.max(1, Math.round(period / 2));
  const maxGap = Math.max(minGap, Math.round(2 * period));
  // Transition costs depend only on the gap: computed once.
  const cost = new Float64Array(maxGap + 1);
  for (let g = minGap; g <= maxGap; g++) cost[g] = TIGHTNESS * Math.log(g / period) ** 2;
  let bestEnd = -1;
  for (let i = 0; i < n; i++) {
    let bestPrev = -1;
    let bestValue = 0;
    for (let g = minGap; g <= maxGap && g <= i; g++) {
      const v = score[i - g] - cost[g];
      if (v > bestValue) {
        bestValue = v;
        bestPrev = i - g;
      }
    }
    score[i] = novelty[i] + bestValue;
    back[i] = bestPrev;
    if (bestEnd < 0 || score[i] > score[bestEnd]) bestEnd = i;
  }
  if (bestEnd < 0 || score[bestEnd] <= 0) return [];
  const beats: number[] = [];
  for (let i = bestEnd; i >= 0; i = back[i]) beats.push(i);
  beats.reverse();
  // Edge beats carried across silence by the period alone say nothing: trim them.
  let sq = 0;
  for (const b of beats) sq += novelty[b] * novelty[b];
  const floor = 0.1 * Math.sqrt(sq / beats.length);
  let first = 0;
  let last = beats.length - 1;
  while (first <= last && novelty[beats[first]] < floor) first++;
  while (last >= first && novelty[beats[last]] < floor) last--;
  return beats.slice(first, last + 1);
}

/** The beat grid the rhythm descriptors are built from (either backend, after the tempo refit). */
export interface BeatGrid {
  bpm: number;
  /** The tracker's own confidence (0 for ours and for essentia's degara method). */
  bpmConfidence: number;
  /** Beat times, s. */
  ticks: number[];
  /** Differences of consecutive beat times, s. */
  bpmIntervals: number[];
}

export interface TrackedBeats {
  bpm: number;
  /** Beat times in seconds. */
  ticks: number[];
}

/**
 * Tempo and beats of a sound from its per-frame onset strength (hop `hop` at `sampleRate`). Each beat
 * moves to an onset within half a frame either side of it, so beats on attacks are sample-accurate.
 * Sounds shorter than a second have too few beats to track: no tempo then.
 */
export function trackBeats(
  onsetStrength: Float32Array,
  onsets: number[],
  durationS: number,
  sampleRate: number,
  hop: number,
): TrackedBeats {
  const fps = sampleRate / hop;
  if (durationS < 1) return { bpm: 0, ticks: [] };
  const novelty = noveltyCurve(onsetStrength, fps);
  const period = estimatePeriod(novelty, fps);
  if (!(period > 0)) return { bpm: 0, ticks: [] };
  const frames = placeBeats(novelty, period);
  const frameS = hop / sampleRate;
  const ticks: number[] = [];
  let j = 0;
  for (const f of frames) {
    // The flux peaks in the frame centred just after an attack: the onset lies up to a frame before it.
    const t = f * frameS;
    while (j < onsets.length && onsets[j] < t - 1.5 * frameS) j++;
    ticks.push(j < onsets.length && onsets[j] <= t + 0.5 * frameS ? onsets[j] : t);
  }
  return { bpm: (60 * fps) / period, ticks };
}
