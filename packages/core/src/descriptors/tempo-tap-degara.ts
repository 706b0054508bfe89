/**
 * Beats from one onset detection function, after the reference's TempoTapDegara: the beat period of each
 * 6 s window (hop 1.5 s) from the comb-filtered autocorrelation of the function under a Rayleigh tempo
 * prior (Davies & Plumbley 2007), smoothed over the windows by a Viterbi path; then the beats by a hidden
 * Markov model whose states count the frames since the last beat, with a Gaussian inter-beat interval
 * around the current period (Degara et al. 2012). Written from the papers and the reference's
 * documentation; constants are the reference's so that its grids (which also fill featureless sounds,
 * at the prior's tempo) come out alike.
 */
import { MT19937_MAX, mt19937 } from './mt19937.ts';
import { Autocorrelation } from './spectrum.ts';

/** Seconds of the period-analysis window (512 frames at 44100/512 Hz) and its four combs. */
const WINDOW_S = 5.944308390022676;
const COMBS = 4;
/** Std of the inter-beat interval around the period, s. */
const IBI_SIGMA = 0.025;
/** Weight of the transition model against the observation (0.5 each). */
const ALPHA = 0.5;
const FLT_MAX = 3.4028234663852886e38;
const FLT_EPSILON = 1.1920929e-7;

/** Divides by the maximum (left alone when the maximum is 0). */
export function normalizeToMax(values: Float32Array): Float32Array {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max > 0 ? values.map((v) => v / max) : values.slice();
}

/** Linear interpolation by an integer factor: (n − 1)·factor + 1 values through the originals. */
export function upsampleLinear(values: Float32Array, factor: number): Float32Array {
  if (factor <= 1 || values.length < 2) return values.slice();
  const out = new Float32Array((values.length - 1) * factor + 1);
  for (let i = 0; i + 1 < values.length; i++) {
    const step = (values[i + 1] - values[i]) / factor;
    for (let j = 0; j < factor; j++) out[i * factor + j] = values[i] + step * j;
  }
  out[out.length - 1] = values[values.length - 1];
  return out;
}

/**
 * Subtracts the centred moving mean over 2·half + 1 values (the ends repeat the edge values) and
 * half-wave rectifies: only what stands above its neighbourhood is kept.
 */
export function adaptiveThreshold(values: ArrayLike<number>, half: number): Float64Array {
  const n = values.length;
  const out = new Float64Array(n);
  const at = (i: number) => values[Math.min(n - 1, Math.max(0, i))];
  let sum = 0;
  for (let i = -half; i <= half; i++) sum += at(i);
  for (let i = 0; i < n; i++) {
    out[i] = Math.max(0, values[i] - sum / (2 * half + 1));
    sum += at(i + half + 1) - at(i - half);
  }
  return out;
}

/** Rayleigh tempo preference over periods 1…count frames, peaking at 120 BPM, normalized to sum 1. */
export function tempoWeights(count: number, rate: number): Float64Array {
  const beta2 = Math.round((60 * rate) / 120) ** 2;
  const w = new Float64Array(count);
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const tau = i + 1;
    w[i] = (tau / beta2) * Math.exp((-0.5 * tau * tau) / beta2);
    sum += w[i];
  }
  for (let i = 0; i < count; i++) w[i] /= sum;
  return w;
}

/** Unbiased autocorrelation: r(k) = Σ x(i)·x(i+k) / (n − k), by FFT (linear: zero-padded to 2n). */
export function unbiasedAutocorrelation(x: Float64Array, acf = new Autocorrelation(x.length)): Float64Array {
  const n = x.length;
  const r = new Float64Array(n);
  acf.compute(Float32Array.from(x), r);
  for (let k = 0; k < n; k++) r[k] /= n - k;
  return r;
}

export interface PeriodGeometry {
  /** Frames per period window and per hop (512 and 128 at 86 Hz). */
  frame: number;
  hop: number;
  /** Period indices (period − 1, in frames) the combs can read, and the user's 40–208 BPM bounds. */
  minIndex: number;
  maxIndex: number;
  minUser: number;
  maxUser: number;
}

export function periodGeometry(rate: number, minBpm = 40, maxBpm = 208): PeriodGeometry {
  const frame = Math.round(WINDOW_S * rate);
  const hop = Math.floor(frame / COMBS);
  return {
    frame,
    hop,
    minIndex: COMBS - 1,
    maxIndex: Math.floor((frame - (COMBS - 1)) / COMBS) - 1,
    minUser: Math.min(hop - 1, Math.floor((60 / maxBpm) * rate) - 1),
    maxUser: Math.min(hop - 1, Math.ceil((60 / minBpm) * rate) - 1),
  };
}

/**
 * The period salience of one window: the sum of four comb elements over the autocorrelation (at 1–4 times
 * the period, each 2c − 1 lags wide and divided by its width), times the tempo prior; then thresholded
 * against its own moving mean, cut to 40–208 BPM and normalized to sum 1.
 */
export function periodObservation(acf: Float64Array, weights: Float64Array, g: PeriodGeometry): Float64Array {
  const out = new Float64Array(g.hop);
  for (let comb = 1; comb <= COMBS; comb++) {
    const width = 2 * comb - 1;
    for (let region = 1 - comb; region <= comb - 1; region++)
      for (let p = g.minIndex; p <= g.maxIndex; p++)
        out[p] += (weights[p] * (acf[(p + 1) * comb - 1 + region] ?? 0)) / width;
  }
  const thresholded = adaptiveThreshold(out, 8);
  thresholded.fill(0, 0, g.minUser + 1);
  thresholded.fill(0, g.maxUser + 1);
  let sum = 0;
  for (const v of thresholded) sum += v;
  if (sum > 0) for (let i = 0; i < thresholded.length; i++) thresholded[i] /= sum;
  return thresholded;
}

/** Windows the reference's FrameCutter cuts from n values (startFromZero: zero-padded, the last reaches the end). */
export function windowCount(n: number, frame: number, hop: number): number {
  if (n <= 0) return 0;
  return Math.max(0, Math.ceil((n - frame) / hop)) + 1;
}

/** Gaussian pdf over ±4σ in steps of `step`, times `scale`; values under 1e-12 are 0. Centre at length >> 1. */
export function gaussianPdf(sigma: number, step: number, scale = 1): Float64Array {
  const size = 2 * Math.ceil((4 * sigma) / step) + 1;
  const mean = size >> 1;
  const g = new Float64Array(size);
  for (let i = 0; i <= mean; i++) {
    let v =
      (1 / (sigma * Math.sqrt(2 * Math.PI))) *
      Math.exp(((i - mean) * step) ** 2 / (-2 * sigma * sigma)) *
      scale;
    if (v < 1e-12) v = 0;
    g[i] = v;
    g[size - 1 - i] = v;
  }
  return g;
}

/**
 * The most probable sequence of period indices over the windows: transitions are a Gaussian (σ = 8 frames
 * at 86 Hz) between indices 28…108 frames apart from nothing else, the first window is weighted by the
 * prior. Ties go to the lowest index.
 */
export function viterbiPeriods(observations: Float64Array[], prior: Float64Array, rate: number): number[] {
  const T = observations.length;
  const P = prior.length;
  if (T === 0) return [];
  const scale = rate / (44100 / 512);
  const g = gaussianPdf(8 * scale, 1);
  const gm = g.length >> 1;
  const lo = Math.floor(28 * scale) - 1;
  const hi = Math.ceil(108 * scale) - 1;
  const trans = (j: number, i: number) =>
    j >= lo && j <= hi && i >= lo && i <= hi && Math.abs(i - j) <= gm ? g[i - j + gm] : 0;
  const normalize = (v: Float64Array) => {
    let s = 0;
    for (const x of v) s += x;
    if (s !== 0) for (let i = 0; i < v.length; i++) v[i] /= s;
  };
  let delta = new Float64Array(P);
  for (let i = 0; i < P; i++) delta[i] = prior[i] * observations[0][i];
  normalize(delta);
  const psi: Int32Array[] = [new Int32Array(P)];
  for (let t = 1; t < T; t++) {
    const next = new Float64Array(P);
    const back = new Int32Array(P);
    for (let j = 0; j < P; j++) {
      let best = 0;
      let bestValue = delta[0] * trans(j, 0);
      for (let i = Math.max(1, j - gm); i <= Math.min(P - 1, j + gm); i++) {
        const v = delta[i] * trans(j, i);
        if (v > bestValue) {
          bestValue = v;
          best = i;
        }
      }
      next[j] = bestValue * observations[t][j];
      back[j] = best;
    }
    normalize(next);
    delta = next;
    psi.push(back);
  }
  const path = new Array<number>(T);
  let last = 0;
  for (let i = 1; i < P; i++) if (delta[i] > delta[last]) last = i;
  path[T - 1] = last;
  for (let t = T - 2; t >= 0; t--) path[t] = psi[t + 1][path[t + 1]];
  return path;
}

export interface BeatPeriods {
  /** Period of each window, s. */
  periods: number[];
  /** Time each window's period stops applying, s. */
  ends: number[];
}

/**
 * Davies's beat periods: the thresholded function cut into 6 s windows every 1.5 s, each window's period
 * salience, a tiny fixed-seed dither (1e-4 of the largest salience, the reference's tie breaker), and the
 * Viterbi path through them.
 */
export function beatPeriods(detections: Float32Array, rate: number): BeatPeriods {
  const g = periodGeometry(rate);
  const thresholded = adaptiveThreshold(detections, Math.floor(0.1 * rate));
  const weights = tempoWeights(g.hop, rate);
  const windows = windowCount(thresholded.length, g.frame, g.hop);
  const observations: Float64Array[] = [];
  let maxObservation = 0;
  const frame = new Float64Array(g.frame);
  const acf = new Autocorrelation(g.frame);
  for (let w = 0; w < windows; w++) {
    frame.fill(0);
    const start = w * g.hop;
    frame.set(thresholded.subarray(start, Math.min(thresholded.length, start + g.frame)));
    const obs = periodObservation(unbiasedAutocorrelation(frame, acf), weights, g);
    for (const v of obs) if (v > maxObservation) maxObservation = v;
    observations.push(obs);
  }
  // No window shows any periodicity in 40–208 BPM (a sound of a few frames, a single click): no
  // period to track. The reference reports no beats there either (every sound under 1.5 s of the 40
  // reference recordings), where its decoder, left with the lowest period index, would tick every frame.
  if (maxObservation === 0) return { periods: [], ends: [] };
  const random = mt19937(83);
  for (const obs of observations)
    for (let i = 0; i < g.hop; i++)
      obs[i] += 0.0001 * maxObservation * (Math.fround(random()) / Math.fround(MT19937_MAX));
  const path = viterbiPeriods(observations, weights, rate);
  const hopS = WINDOW_S / COMBS;
  return { periods: path.map((p) => (p + 1) / rate), ends: path.map((_, t) => (t + 1) * hopS) };
}

/**
 * Log transition weights of the beat model for one period: state i (i + 1 frames since the last beat)
 * moves to a beat with the hazard of the inter-beat pdf (its value over the probability of having come
 * this far without a beat) or on to state i + 1; both as α·log.
 */
export function beatTransitions(
  periodS: number,
  states: number,
  resolution: number,
  resample: number,
): BeatModel {
  const g = gaussianPdf(IBI_SIGMA, resolution, 0.01 / resample);
  const shift = (g.length >> 1) - Math.round(periodS / resolution - 1);
  const toBeat = new Float64Array(states);
  const onward = new Float64Array(states);
  let survival = 1;
  let first = states;
  let last = -1;
  for (let i = 0; i < states; i++) {
    const j = i + shift;
    const pdf = j >= 0 && j < g.length ? g[j] : 0;
    let hazard = survival > 0 ? pdf / survival : pdf > 0 ? 1 : 0;
    hazard = Math.min(1, Math.max(0, hazard));
    toBeat[i] = ALPHA * Math.log(hazard);
    onward[i] = ALPHA * Math.log(1 - hazard);
    survival *= 1 - hazard;
    if (hazard > 0) {
      first = Math.min(first, i);
      last = i;
    }
  }
  return { toBeat, onward, first, last };
}

/** The beat model of one period: log weights per state, and the states from which a beat can follow. */
export interface BeatModel {
  toBeat: Float64Array;
  onward: Float64Array;
  first: number;
  last: number;
}

/**
 * Degara's beats: states count frames since the last beat (up to the longest period + 3σ); the detection
 * function, read as a beat probability, scores "beat" in state 0 and "no beat" elsewhere; the cheapest
 * path is traced back and its visits to state 0 are the beats (frame index · resolution, s).
 */
export function decodeBeats(
  detections: Float32Array,
  periods: BeatPeriods,
  rate: number,
  resample: number,
): number[] {
  const T = detections.length;
  if (T === 0 || periods.periods.length === 0) return [];
  const resolution = 1 / rate;
  const periodMax = Math.max(...periods.periods);
  // The reference counts states by adding the resolution up in single precision.
  const ibiMax = Math.fround(periodMax + 3 * IBI_SIGMA);
  const res32 = Math.fround(resolution);
  let states = 0;
  for (let t = res32; t <= ibiMax; t = Math.fround(t + res32)) states++;
  const models = new Map<number, BeatModel>();
  for (const p of periods.periods)
    if (!models.has(p)) models.set(p, beatTransitions(p, states, resolution, resample));
  const beat = new Float64Array(T);
  const noBeat = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const p = 0.99 * Math.max(detections[t], FLT_EPSILON);
    beat[t] = (1 - ALPHA) * Math.log(p);
    noBeat[t] = (1 - ALPHA) * Math.log(1 - p);
  }
  let cost = new Float64Array(states).fill(FLT_MAX);
  cost[0] = 0;
  let next = new Float64Array(states);
  const backToBeat = new Int32Array(T);
  let window = 0;
  for (let t = 0; t < T; t++) {
    const model = models.get(periods.periods[window]) as BeatModel;
    // Outside [first, last] a beat is impossible (log 0): the cheapest way into a beat lies inside.
    let best = Math.min(model.first, states - 1);
    let bestCost = cost[best] - model.toBeat[best];
    for (let i = best + 1; i <= model.last; i++) {
      const c = cost[i] - model.toBeat[i];
      if (c < bestCost) {
        bestCost = c;
        best = i;
      }
    }
    backToBeat[t] = bestCost === FLT_MAX ? -1 : best;
    next[0] = bestCost - beat[t];
    for (let s = 1; s < states; s++) next[s] = cost[s - 1] - model.onward[s - 1] - noBeat[t];
    [cost, next] = [next, cost];
    const time = (t + 1) * resolution;
    while (window + 1 < periods.ends.length && periods.ends[window + 1] <= time) window++;
  }
  let state = 0;
  for (let s = 1; s < states; s++) if (cost[s] < cost[state]) state = s;
  const beats: number[] = [];
  for (let t = T - 1; t >= 0 && state >= 0; t--) {
    if (state === 0) {
      beats.push(t * resolution);
      state = backToBeat[t];
    } else state--;
  }
  return beats.reverse();
}

/**
 * Beat times (s) from a non-negative onset detection function at `rate` frames per second, upsampled
 * `resample` times first (the reference doubles its 1024-hop functions). A function that is 0 throughout
 * (digital silence) has no beats: the reference adds -100 dB noise to silent frames and would track that.
 */
export function tempoTapDegara(odf: Float32Array, rate: number, resample = 1): number[] {
  if (!odf.some((v) => v > 0)) return [];
  const detections = upsampleLinear(normalizeToMax(odf), resample);
  const r = rate * resample;
  const beats = decodeBeats(detections, beatPeriods(detections, r), r, resample);
  // One beat is no grid (no interval, no tempo); the reference reports none for such short sounds.
  return beats.length >= 2 ? beats : [];
}
