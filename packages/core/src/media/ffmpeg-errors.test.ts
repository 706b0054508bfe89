import { describe, expect, it } from 'vitest';
import { FfmpegProcessError } from '../ffmpeg/errors.ts';
import type { MediaError } from './errors.ts';
import { toMediaError } from './ffmpeg-errors.ts';

function failed(stderrTail: string, timedOut = false): FfmpegProcessError {
  return new FfmpegProcessError('ffmpeg failed', ['-i', 'x'], timedOut ? null : 1, stderrTail, timedOut);
}

describe('toMediaError', () => {
  it('words damaged data, an encoder assertion and a timeout as the user errors they are', () => {
    const code = (err: FfmpegProcessError) => (toMediaError(err) as MediaError).code;
    expect(code(failed('[mp3 @ 0x1] Header missing\nError while decoding stream #0:0'))).toBe('corrupt_file');
    expect(code(failed("ffmpeg: psymodel.c:576: calc_energy: Assertion `el >= 0' failed."))).toBe(
      'corrupt_file',
    );
    expect(code(failed('', true))).toBe('timeout');
    // Anything else may be the machine's fault (out of memory, a killed process): retried.
    const other = toMediaError(failed('Cannot allocate memory')) as MediaError;
    expect(other.code).toBe('processing_failed');
    expect(other.status).toBe(500);
  });

  it('leaves errors that are not ffmpeg runs alone', () => {
    const err = new Error('boom');
    expect(toMediaError(err)).toBe(err);
  });
});
