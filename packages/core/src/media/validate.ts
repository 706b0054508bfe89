import { MediaError } from './errors.ts';
import type { ProbeResult } from './probe.ts';

/** Formats whose header states the exact length, so a shortfall means the data was cut off. */
const EXACT_LENGTH_TYPES = new Set(['wav', 'aif', 'aiff', 'flac']);

/**
 * Refuses a decode that yielded no audio, or (for formats whose header states the length) much
 * less than the header promised: the file was cut off or its header lies.
 */
export function checkDecodedLength(probe: ProbeResult, decodedSamples: number, sampleRate: number): void {
  if (decodedSamples === 0) throw new MediaError('no_audio', undefined, { probedDuration: probe.duration });
  const decoded = decodedSamples / sampleRate;
  if (EXACT_LENGTH_TYPES.has(probe.type) && decoded < probe.duration * 0.9 - 0.05) {
    throw new MediaError(
      'corrupt_file',
      `Its header promises ${probe.duration.toFixed(2)} s of audio but only ${decoded.toFixed(2)} s are there.`,
      { probedDuration: probe.duration, decodedDuration: decoded },
    );
  }
}
