import { fileUrl } from '../ffmpeg/args.ts';
import { defaultFfmpeg, type Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import type { ProbeResult } from '../media/probe.ts';
import { sanitizeSamples } from '../media/sanitize-samples.ts';
import { KWeightedSteps, type LoudnessResult, loudnessFromSteps } from './loudness.ts';

const BYTES_PER_SAMPLE = 4;

export interface FileLoudnessOptions {
  /** The rate the file is measured at (default 44100). */
  sampleRate?: number;
  /** Stops the decode (a stopped job's analysis must not keep an ffmpeg busy). */
  signal?: AbortSignal;
  /** The ffmpeg to run (default: `defaultFfmpeg()`). */
  ffmpeg?: Ffmpeg;
}

/**
 * EBU R128 loudness of a file with all its channels (BS.1770 sums the channels' powers, so a mono
 * mix-down reads up to 3 dB low for stereo). One extra decode to interleaved float32, streamed through
 * the K-weighting: nothing but one number per 100 ms is kept.
 */
export async function fileLoudness(
  file: string,
  probe: Pick<ProbeResult, 'channels' | 'streamIndex'>,
  options: FileLoudnessOptions = {},
): Promise<LoudnessResult> {
  const { sampleRate = 44100, signal, ffmpeg = defaultFfmpeg() } = options;
  const meter = new KWeightedSteps(sampleRate, probe.channels);
  const frameBytes = BYTES_PER_SAMPLE * probe.channels;
  let carry = Buffer.alloc(0);
  const args = [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-i',
    fileUrl(file),
    '-map',
    `0:${probe.streamIndex}`,
    '-vn',
    '-sn',
    '-dn',
    '-af',
    `aresample=${sampleRate}`,
    '-c:a',
    'pcm_f32le',
    '-f',
    'f32le',
    'pipe:1',
  ];
  await ffmpeg.run('ffmpeg', args, {
    signal,
    onStdout: (chunk) => {
      const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const usable = data.length - (data.length % frameBytes);
      // Copy into an aligned buffer: a Buffer's offset inside its pool is not always a multiple of 4.
      const samples = new Float32Array(usable / BYTES_PER_SAMPLE);
      new Uint8Array(samples.buffer).set(data.subarray(0, usable));
      sanitizeSamples(samples);
      meter.push(samples);
      carry = Buffer.from(data.subarray(usable));
    },
  });
  return loudnessFromSteps(meter.finish(), meter.step);
}
