/** An ffmpeg/ffprobe process that failed; carries the argv and the tail of stderr for the log. */
export class FfmpegProcessError extends Error {
  constructor(
    message: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderrTail: string,
    readonly timedOut = false,
  ) {
    super(stderrTail ? `${message}\n${stderrTail}` : message);
    this.name = 'FfmpegProcessError';
  }
}
