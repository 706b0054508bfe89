/**
 * Where the core reports what a host may want in its logs (today: which ffmpeg and ffprobe it
 * chose, and their versions). The core never writes to stdout or stderr itself: without a logger
 * it says nothing. A pino or bunyan logger fits as it is, and so does `console`.
 */
export interface CoreLogger {
  info(fields: Record<string, unknown>, message: string): void;
  /** When present and false for 'info', the core skips the work of what it would have told (pino has it). */
  isLevelEnabled?(level: 'info'): boolean;
}
