import { type RealSample, realSamples } from '@earshot/fixtures';
import { decodeMono } from '../media/decode.ts';

/**
 * One of the 40 reference recordings (`realSamples()`), decoded as the analysis decodes it, beside the
 * values native Essentia wrote for it: the golden input of a kernel's test against the reference.
 */
export async function referenceRecording(
  name: string,
): Promise<{ reference: RealSample['reference']; samples: Float32Array; sampleRate: number }> {
  const sample = realSamples().find((s) => s.name === name);
  if (!sample) throw new Error(`no reference recording ${name}`);
  const { samples, sampleRate } = await decodeMono(sample.file);
  return { reference: sample.reference, samples, sampleRate };
}

/** The mean over frames of each dimension of a frame-major vector series (`FrameSeries.vector`). */
export function columnMeans(values: Float32Array, dims: number): number[] {
  const frames = values.length / dims;
  const means = new Array<number>(dims).fill(0);
  for (let i = 0; i < frames; i++) for (let d = 0; d < dims; d++) means[d] += values[i * dims + d];
  return means.map((sum) => sum / frames);
}
