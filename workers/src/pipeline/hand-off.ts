import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ProbeResult } from '@earshot/core';
import { replaceFile } from '@earshot/services';
import type { AnalysisOutput } from './tools.ts';

/**
 * What one stage leaves for the next in the sound's `work/` folder, so later stages need not run
 * the same tool again: the probe (one ffprobe instead of three) and the mono signal the media
 * stage decoded (the analysis reads it instead of decoding the file a second time), or the analysis
 * itself when the media stage made it. Every file
 * is a cache: missing or unusable means the stage does the work itself.
 */
export const PROBE_FILE = 'probe.json';
export const SIGNAL_FILE = 'signal-f32le.raw';

/**
 * Writes through a temporary name, so a reader never sees half a file. With `signal`, an attempt
 * that was stopped publishes nothing: a job the runner gave up on (a timeout leaves its handler a
 * few seconds, then retries) may still be running, and must not put a file back into `work/` after
 * the retry cleared it, or after the last stage removed the folder.
 */
export async function writeAtomically(
  file: string,
  data: string | Uint8Array,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  await replaceFile(file, async (temp) => {
    await fs.writeFile(temp, data);
    signal?.throwIfAborted();
  });
}

export async function readProbe(file: string): Promise<ProbeResult | undefined> {
  try {
    const probe = JSON.parse(await fs.readFile(file, 'utf8')) as ProbeResult;
    return typeof probe?.duration === 'number' && typeof probe.streamIndex === 'number' ? probe : undefined;
  } catch {
    return undefined;
  }
}

export async function writeSignal(file: string, samples: Float32Array, signal?: AbortSignal): Promise<void> {
  await writeAtomically(file, new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), signal);
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

/**
 * The analysis the media stage made alongside the previews (a lone worker with two cores: the
 * descriptors run in Node while ffmpeg encodes): the analysis files and `output.json` (the stage's
 * result), in a folder that appears whole by one rename. The analysis stage moves the files into
 * its output and saves the result; missing or incomplete means it analyses the sound itself.
 */
export const ANALYSIS_DIR = 'analysis';
const OUTPUT_FILE = 'output.json';

/**
 * `make` fills a folder of its own (a random name per call, so two attempts never share one); the
 * folder is renamed into place only if the attempt was not stopped meanwhile (see writeAtomically:
 * the descriptors do not stop on abort, so a stopped attempt can outlive its job).
 */
export async function writeAnalysisHandOff(
  dir: string,
  make: (tempDir: string) => Promise<AnalysisOutput>,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  const temp = `${dir}.${randomBytes(4).toString('hex')}.partial`;
  await fs.mkdir(temp, { recursive: true });
  try {
    const output = await make(temp);
    await fs.writeFile(path.join(temp, OUTPUT_FILE), JSON.stringify(output));
    signal?.throwIfAborted();
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(temp, dir);
  } catch (err) {
    await fs.rm(temp, { recursive: true, force: true });
    throw err;
  }
}

/** The analysis left in `dir`, if it is whole (its result and every file it names). */
export async function readAnalysisHandOff(dir: string): Promise<AnalysisOutput | undefined> {
  try {
    const output = JSON.parse(await fs.readFile(path.join(dir, OUTPUT_FILE), 'utf8')) as AnalysisOutput;
    if (typeof output?.analysisFile !== 'string' || typeof output.analysis?.analysisA !== 'object')
      return undefined;
    await Promise.all(analysisFileNames(output).map((name) => fs.access(path.join(dir, name))));
    return output;
  } catch {
    return undefined;
  }
}

export function analysisFileNames(output: AnalysisOutput): string[] {
  return [
    output.analysisFile,
    ...(output.framesFile ? [output.framesFile] : []),
    ...Object.values(output.extraFiles ?? {}),
  ];
}
