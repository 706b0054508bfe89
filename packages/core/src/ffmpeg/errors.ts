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

/**
 * No working ffmpeg or ffprobe: the path given does not run, or (none given) the binary is neither
 * on PATH nor installed from npm (@ffmpeg-installer/ffmpeg, @ffprobe-installer/ffprobe).
 */
export class FfmpegNotFoundError extends Error {
  constructor(
    readonly binary: 'ffmpeg' | 'ffprobe',
    /** The path the caller named, when it named one. */
    readonly path?: string,
  ) {
    super(
      `Cannot find a working ${binary}: ${
        path ? `${path} is not an executable file` : `${binary} is neither on PATH nor installed from npm`
      }`,
    );
    this.name = 'FfmpegNotFoundError';
  }
}

/** The spawn helper process (spawn-helper.ts) died or could not be reached; the run it carried is lost. */
export class SpawnHelperError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpawnHelperError';
  }
}
