import { MediaError } from './errors.ts';
import type { ProbeResult } from './probe.ts';

/**
 * Share of the probed duration a decode must reach. Containers state their length exactly, except
 * an mp3 without a frame-count header, whose length ffprobe estimates from the first frames'
 * bitrate: a looser bound there keeps honest VBR files while still catching a cut-off file.
 */
const MIN_DECODED_SHARE: Record<string, number> = { mp3: 0.75 };
const DEFAULT_MIN_DECODED_SHARE = 0.9;

/**
 * Refuses a decode that yielded no audio, or much less than the file's header promised: the file
 * was cut off or its header lies.
 */
export function checkDecodedLength(
  probe: Pick<ProbeResult, 'type' | 'duration'>,
  decodedSamples: number,
  sampleRate: number,
): void {
  if (decodedSamples === 0) throw new MediaError('no_audio', undefined, { probedDuration: probe.duration });
  const decoded = decodedSamples / sampleRate;
  const share = MIN_DECODED_SHARE[probe.type] ?? DEFAULT_MIN_DECODED_SHARE;
  if (decoded < probe.duration * share - 0.05) {
    throw new MediaError(
      'corrupt_file',
      `It should hold ${probe.duration.toFixed(2)} s of audio but only ${decoded.toFixed(2)} s could be decoded.`,
      { probedDuration: probe.duration, decodedDuration: decoded },
    );
  }
}
