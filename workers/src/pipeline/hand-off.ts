import fs from 'node:fs/promises';
import type { ProbeResult } from '@earshot/core';
import { replaceFile } from '@earshot/services';

/**
 * What one stage leaves for the next in the sound's `work/` folder, so later stages need not run
 * the same tool again: the probe (one ffprobe instead of three) and the mono signal the media
 * stage decoded (the analysis reads it instead of decoding the file a second time). Every file
 * is a cache: missing or unusable means the stage does the work itself.
 */
export const PROBE_FILE = 'probe.json';
export const SIGNAL_FILE = 'signal-f32le.raw';

/** Writes through a temporary name, so a reader never sees half a file. */
export function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  return replaceFile(file, (temp) => fs.writeFile(temp, data));
}

export async function readProbe(file: string): Promise<ProbeResult | undefined> {
  try {
    const probe = JSON.parse(await fs.readFile(file, 'utf8')) as ProbeResult;
    return typeof probe?.duration === 'number' && typeof probe.streamIndex === 'number' ? probe : undefined;
  } catch {
    return undefined;
  }
}

export async function writeSignal(file: string, samples: Float32Array): Promise<void> {
  await writeAtomically(file, new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
}

/**
 * The signal the media stage left, if it is there and as long as the probe says the sound is
 * (within a frame): anything else (an older file, a different original) is ignored.
 */
export async function readSignal(
  file: string,
  probe: Pick<ProbeResult, 'duration'>,
  sampleRate: number,
): Promise<Float32Array | undefined> {
  const bytes = await fs.readFile(file).catch(() => undefined);
  if (!bytes || bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) return undefined;
  const samples = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(samples.buffer).set(bytes);
  const seconds = samples.length / sampleRate;
  if (Math.abs(seconds - probe.duration) > Math.max(0.1, probe.duration * 0.1)) return undefined;
  return samples;
}
