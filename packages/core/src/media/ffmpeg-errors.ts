import { FfmpegProcessError } from '../ffmpeg/errors.ts';
import { MediaError } from './errors.ts';

/** Turns a failed ffmpeg run on a probed file into the error a user sees; keeps the stderr tail for operators. */
export function toMediaError(err: unknown): unknown {
  if (err instanceof MediaError || !(err instanceof FfmpegProcessError)) return err;
  const details = { args: err.args, exitCode: err.exitCode, stderr: err.stderrTail };
  if (err.timedOut) return new MediaError('timeout', undefined, details);
  // The probe already accepted the container, so a decoder failure means damaged data.
  if (/invalid data|corrupt|error while decoding|header missing|could not find codec/i.test(err.stderrTail)) {
    return new MediaError('corrupt_file', undefined, details);
  }
  // An encoder that aborts on an assertion does so on the same samples every time: retrying the
  // file only repeats the crash, so it fails at once (LAME asserted on a float WAV's NaN sample).
  if (/Assertion .+ failed/.test(err.stderrTail)) {
    return new MediaError('corrupt_file', undefined, details);
  }
  return new MediaError('processing_failed', undefined, details);
}
