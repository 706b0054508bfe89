/**
 * Temporal (sfx.*) descriptors from the amplitude envelope, after Essentia's SFX algorithms and Peeters'
 * CUIDADO report. The centroid, moments, decrease and effective duration are the reference extractor's
 * (sfx-envelope.ts); the other values read an attack/release follower of |x| (10 ms attack, 1.5 s release)
 * decimated to 1 ms points.
 */
import { referenceEnvelope, temporalShape } from './sfx-envelope.ts';

export interface EnvelopeDescriptors {
  effectiveDuration: number;
  logAttackTime: number;
  temporalCentroid: number;
  temporalSpread: number;
  temporalSkewness: number;
  temporalKurtosis: number;
  temporalDecrease: number;
  strongDecay: number;
  flatness: number;
  maxToTotal: number;
  derAvAfterMax: number;
  maxDerBeforeMax: number;
}

/** One envelope point per millisecond: the follower's value at the end of each block. */
export function amplitudeEnvelope(
  signal: Float32Array,
  sampleRate: number,
  attackS = 0.01,
  releaseS = 1.5,
): { env: Float32Array; rate: number } {
  const block = Math.max(1, Math.round(sampleRate / 1000));
  const points = Math.ceil(signal.length / block);
  const env = new Float32Array(points);
  const ga = Math.exp(-1 / (attackS * sampleRate));
  const gr = Math.exp(-1 / (releaseS * sampleRate));
  let y = 0;
  for (let i = 0; i < signal.length; i++) {
    const x = Math.abs(signal[i]);
    y = x > y ? ga * y + (1 - ga) * x : gr * y + (1 - gr) * x;
    const p = (i / block) | 0;
    if (y > env[p]) env[p] = y;
  }
  return { env, rate: sampleRate / block };
}

function argmax(x: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}

export function envelopeDescriptors(signal: Float32Array, sampleRate: number): EnvelopeDescriptors {
  const { env, rate } = amplitudeEnvelope(signal, sampleRate);
  const n = env.length;
  const peakIndex = argmax(env);
  const peak = n ? env[peakIndex] : 0;
  const shape = temporalShape(referenceEnvelope(signal, sampleRate), sampleRate);
  const temporal = {
    effectiveDuration: shape.effectiveDuration,
    temporalCentroid: shape.centroid,
    temporalSpread: shape.spread,
    temporalSkewness: shape.skewness,
    temporalKurtosis: shape.kurtosis,
    temporalDecrease: shape.decrease,
  };
  const empty: EnvelopeDescriptors = {
    ...temporal,
    logAttackTime: -5,
    strongDecay: 0,
    flatness: 0,
    maxToTotal: 0,
    derAvAfterMax: 0,
    maxDerBeforeMax: 0,
  };
  if (n === 0 || peak < 1e-9) return empty;

  // Log attack time: from the envelope crossing 20% of its peak to crossing 90% (at least one sample).
  let start = 0;
  while (start < peakIndex && env[start] < 0.2 * peak) start++;
  let stop = start;
  while (stop < peakIndex && env[stop] < 0.9 * peak) stop++;
  const attack = Math.max((stop - start) / rate, 1 / sampleRate);
  const logAttackTime = Math.log10(attack);

  // Centroid of the 1 ms envelope over normalized time, for the strong decay below.
  let sum = 0;
  let weighted = 0;
  for (let i = 0; i < n; i++) {
    sum += env[i];
    weighted += (i / Math.max(1, n - 1)) * env[i];
  }
  const centroid = weighted / sum;

  // Strong decay (Essentia): sqrt(signal energy / temporal centroid in seconds) — large for loud, early-weighted sounds.
  let energy = 0;
  for (let i = 0; i < signal.length; i++) energy += signal[i] * signal[i];
  const centroidSeconds = (centroid * signal.length) / sampleRate;
  const strongDecay = centroidSeconds > 0 ? Math.sqrt(energy / centroidSeconds) : 0;

  // Flatness (FlatnessSFX-like): peak over the mean of the envelope where it is above 1% of the peak.
  let innerSum = 0;
  let innerCount = 0;
  for (let i = 0; i < n; i++) {
    if (env[i] > 0.01 * peak) {
      innerSum += env[i];
      innerCount++;
    }
  }
  const flatness = innerCount ? peak / (innerSum / innerCount) : 0;

  // Derivatives per ms of the envelope around the maximum (Essentia's DerivativeSFX).
  let maxDerBeforeMax = 0;
  for (let i = 1; i <= peakIndex; i++) maxDerBeforeMax = Math.max(maxDerBeforeMax, env[i] - env[i - 1]);
  let derWeighted = 0;
  let derWeight = 0;
  for (let i = peakIndex + 1; i < n; i++) {
    derWeighted += (env[i] - env[i - 1]) * env[i];
    derWeight += env[i];
  }
  const derAvAfterMax = derWeight > 0 ? derWeighted / derWeight : 0;

  return {
    ...temporal,
    logAttackTime,
    strongDecay,
    flatness,
    maxToTotal: peakIndex / n,
    derAvAfterMax,
    maxDerBeforeMax,
  };
}
