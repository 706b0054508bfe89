/**
 * Temporal (sfx.*) descriptors from the amplitude envelope: every value is the reference extractor's, on
 * the reference's envelope (sfx-envelope.ts). `amplitudeEnvelope`, a continuous attack/release follower
 * kept as its maximum per millisecond, serves the event detectors (events.ts).
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
  // The reference's follower, run through the whole signal without restarts, then its peak per ms.
  const followed = referenceEnvelope(signal, sampleRate, attackS, releaseS, Math.max(1, signal.length));
  for (let i = 0; i < followed.length; i++) {
    const p = (i / block) | 0;
    if (followed[i] > env[p]) env[p] = followed[i];
  }
  return { env, rate: sampleRate / block };
}

export function envelopeDescriptors(signal: Float32Array, sampleRate: number): EnvelopeDescriptors {
  const shape = temporalShape(referenceEnvelope(signal, sampleRate), sampleRate);
  return {
    effectiveDuration: shape.effectiveDuration,
    logAttackTime: shape.logAttackTime,
    temporalCentroid: shape.centroid,
    temporalSpread: shape.spread,
    temporalSkewness: shape.skewness,
    temporalKurtosis: shape.kurtosis,
    temporalDecrease: shape.decrease,
    strongDecay: shape.strongDecay,
    flatness: shape.flatness,
    maxToTotal: shape.maxToTotal,
    derAvAfterMax: shape.derAvAfterMax,
    maxDerBeforeMax: shape.maxDerBeforeMax,
  };
}
