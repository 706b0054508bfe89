import fs from 'node:fs/promises';
import type { FrameSeries } from './frame-series.ts';

/**
 * The analysis frames file: JSON whose per-frame arrays are base64 strings of little-endian float32
 * (frame-major for vectors), about a third the size of the same numbers written as JSON text. Layout:
 *
 *   { format: "earshot-frames", version: 1, sample_rate, encoding: "float32le-base64",
 *     groups: { <group>: { frame_size, hop_size, frames, times: <base64: centre time (s) per frame>,
 *                          descriptors: { <name>: { dims, data: <base64> } } } } }
 *
 * Frame i of a group is centred on sample i·hop_size (the first frame is centred on sample 0).
 */
export interface FramesGroup {
  frame_size: number;
  hop_size: number;
  frames: number;
  times: string;
  descriptors: Record<string, { dims: number; data: string }>;
}

export interface FramesFile {
  format: 'earshot-frames';
  version: 1;
  sample_rate: number;
  encoding: 'float32le-base64';
  groups: Record<string, FramesGroup>;
}

function encode(values: Float32Array): string {
  // Float32Array is little-endian on every platform Node runs on.
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
}

export function decodeFrameValues(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** Internal series that are not descriptors of their own and stay out of the file. */
const INTERNAL = new Set(['frame_energy', 'melbands96']);

/**
 * `{ dims, data }` whose base64 `data` is encoded each time it is read (JSON.stringify reads enumerable
 * getters), so a long sound's frames file never holds every base64 string at once; the values must not
 * change afterwards.
 */
function lazyEncoded(dims: number, values: Float32Array): { dims: number; data: string } {
  const entry = { dims } as { dims: number; data: string };
  Object.defineProperty(entry, 'data', { enumerable: true, get: () => encode(values) });
  return entry;
}

export function framesGroup(
  series: FrameSeries,
  frameSize: number,
  hopSize: number,
  sampleRate: number,
): FramesGroup {
  const times = new Float32Array(series.frames);
  for (let i = 0; i < series.frames; i++) times[i] = (i * hopSize) / sampleRate;
  const descriptors: FramesGroup['descriptors'] = {};
  for (const [name, data] of series.scalars)
    if (!INTERNAL.has(name)) descriptors[name] = lazyEncoded(1, data);
  for (const [name, { dims, data }] of series.vectors)
    if (!INTERNAL.has(name)) descriptors[name] = lazyEncoded(dims, data);
  const group = { frame_size: frameSize, hop_size: hopSize, frames: series.frames } as FramesGroup;
  Object.defineProperty(group, 'times', { enumerable: true, get: () => encode(times) });
  group.descriptors = descriptors;
  return group;
}

/**
 * Writes the frames file as JSON.stringify would, one value at a time: only one descriptor's base64 text
 * exists at any moment instead of the whole file as one string (25 MB for ten minutes of audio).
 */
export async function writeFramesFile(frames: FramesFile, file: string): Promise<number> {
  const handle = await fs.open(file, 'w');
  let bytes = 0;
  const put = async (text: string) => {
    bytes += Buffer.byteLength(text);
    await handle.write(text);
  };
  const emit = async (value: unknown): Promise<void> => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      await put(JSON.stringify(value));
      return;
    }
    await put('{');
    let first = true;
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || typeof v === 'function') continue;
      await put(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      await emit(v);
    }
    await put('}');
  };
  try {
    await emit(frames);
  } finally {
    await handle.close();
  }
  return bytes;
}
