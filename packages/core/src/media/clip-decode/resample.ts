/**
 * A polyphase windowed-sinc resampler built like ffmpeg's default `aresample` (libswresample):
 * 32 taps at unit ratio (more when downsampling, as the cutoff narrows), cutoff at 0.97 of the
 * lower Nyquist rate, a Kaiser window of beta 9, one exact phase per output position of the reduced
 * rate ratio, and the signal mirrored at both ends. The analysis of a clip then sees the same
 * spectrum whether ffmpeg or this decoded it (the tests hold the two to sample-level closeness).
 */

const FILTER_SIZE = 32;
const CUTOFF = 0.97;
const KAISER_BETA = 9;
/** Above this many phases ffmpeg interpolates between them; such rates are left to ffmpeg. */
export const MAX_PHASES = 1024;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Modified Bessel function of the first kind, order 0 (its power series converges fast here). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 200; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

export interface ResamplePlan {
  /** Output samples per `down` input samples. */
  up: number;
  down: number;
  taps: number;
  /** `up` phases of `taps` coefficients each. */
  filters: Float32Array;
}

/** The filter bank for one rate pair, or undefined when it needs more than MAX_PHASES phases. */
export function planResample(inRate: number, outRate: number): ResamplePlan | undefined {
  const g = gcd(inRate, outRate);
  const up = outRate / g;
  const down = inRate / g;
  if (up > MAX_PHASES) return undefined;
  const factor = Math.min((outRate * CUTOFF) / inRate, 1);
  let taps = Math.max(Math.ceil(FILTER_SIZE / factor), 1);
  if (taps > 1) taps += taps % 2;
  const center = Math.floor((taps - 1) / 2);
  const filters = new Float32Array(up * taps);
  const row = new Float64Array(taps);
  let norm = 0;
  for (let phase = 0; phase < up; phase++) {
    for (let i = 0; i < taps; i++) {
      const x = Math.PI * (i - center - phase / up) * factor;
      let y = x === 0 ? 1 : Math.sin(x) / x;
      const w = (2 * x) / (factor * taps * Math.PI);
      y *= besselI0(KAISER_BETA * Math.sqrt(Math.max(1 - w * w, 0)));
      row[i] = y;
      if (phase === 0) norm += y;
    }
    // One gain for every phase (that of phase 0), so a constant signal stays that constant.
    for (let i = 0; i < taps; i++) filters[phase * taps + i] = row[i] / norm;
  }
  return { up, down, taps, filters };
}

/** Resamples a mono signal with a plan; the output has ceil(n · up / down) samples. */
export function resample(input: Float32Array, plan: ResamplePlan): Float32Array {
  const { up, down, taps, filters } = plan;
  const n = input.length;
  const outLength = Math.ceil((n * up) / down);
  const center = Math.floor((taps - 1) / 2);
  // Mirrored ends, as libswresample pads them, so the first and last outputs see no step.
  const pad = taps;
  const padded = new Float32Array(n + 2 * pad);
  padded.set(input, pad);
  for (let k = 1; k <= pad; k++) {
    padded[pad - k] = input[Math.min(k, n - 1)];
    padded[pad + n - 1 + k] = input[Math.max(n - 1 - k, 0)];
  }
  const out = new Float32Array(outLength);
  for (let j = 0; j < outLength; j++) {
    const position = j * down;
    const index = Math.floor(position / up);
    const phase = position - index * up;
    const base = pad + index - center;
    const f = phase * taps;
    let sum = 0;
    for (let i = 0; i < taps; i++) sum += padded[base + i] * filters[f + i];
    out[j] = sum;
  }
  return out;
}
