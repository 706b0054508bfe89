/**
 * Temporal (sfx.*) descriptors from the amplitude envelope, after Essentia's SFX algorithms and Peeters'
 * CUIDADO report. The envelope is an attack/release follower of |x| (10 ms attack, 1.5 s release like
 * Essentia's Envelope in the Freesound extractor), decimated to 1 ms points for the later steps.
 */

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

/**
 * @param effectiveThreshold fraction of the envelope maximum above which time counts as "effective"
 *   (Essentia's EffectiveDuration uses 0.4).
 */
export function envelopeDescriptors(
  signal: Float32Array,
  sampleRate: number,
  effectiveThreshold = 0.4,
): EnvelopeDescriptors {
  const { env, rate } = amplitudeEnvelope(signal, sampleRate);
  const n = env.length;
  const peakIndex = argmax(env);
  const peak = n ? env[peakIndex] : 0;
  const empty: EnvelopeDescriptors = {
    effectiveDuration: 0,
    logAttackTime: -5,
    temporalCentroid: 0,
    temporalSpread: 0,
    temporalSkewness: 0,
    temporalKurtosis: 0,
    temporalDecrease: 0,
    strongDecay: 0,
    flatness: 0,
    maxToTotal: 0,
    derAvAfterMax: 0,
    maxDerBeforeMax: 0,
  };
  if (n === 0 || peak < 1e-9) return empty;

  let above = 0;
  for (let i = 0; i < n; i++) if (env[i] >= effectiveThreshold * peak) above++;
  const effectiveDuration = Math.min(above / rate, signal.length / sampleRate);

  // Log attack time: from the envelope crossing 20% of its peak to crossing 90% (at least one sample).
  let start = 0;
  while (start < peakIndex && env[start] < 0.2 * peak) start++;
  let stop = start;
  while (stop < peakIndex && env[stop] < 0.9 * peak) stop++;
  const attack = Math.max((stop - start) / rate, 1 / sampleRate);
  const logAttackTime = Math.log10(attack);

  // Envelope as a distribution over normalized time [0, 1].
  let sum = 0;
  let weighted = 0;
  for (let i = 0; i < n; i++) {
    sum += env[i];
    weighted += (i / Math.max(1, n - 1)) * env[i];
  }
  const centroid = weighted / sum;
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (let i = 0; i < n; i++) {
    const d = i / Math.max(1, n - 1) - centroid;
    m2 += d * d * env[i];
    m3 += d * d * d * env[i];
    m4 += d * d * d * d * env[i];
  }
  m2 /= sum;
  m3 /= sum;
  m4 /= sum;

  // Temporal decrease: slope of the least-squares line through the peak-normalized envelope over [0, 1].
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const t = i / Math.max(1, n - 1);
    const y = env[i] / peak;
    sx += t;
    sy += y;
    sxx += t * t;
    sxy += t * y;
  }
  const slopeDen = n * sxx - sx * sx;
  const temporalDecrease = slopeDen > 0 ? (n * sxy - sx * sy) / slopeDen : 0;

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
    effectiveDuration,
    logAttackTime,
    temporalCentroid: centroid,
    temporalSpread: m2,
    temporalSkewness: m2 > 0 ? m3 / m2 ** 1.5 : 0,
    temporalKurtosis: m2 > 0 ? m4 / (m2 * m2) - 3 : 0,
    temporalDecrease,
    strongDecay,
    flatness,
    maxToTotal: peakIndex / n,
    derAvAfterMax,
    maxDerBeforeMax,
  };
}
