import { MediaError } from './errors.ts';

/*
 * The longest sound taken (UPLOAD_MAX_SECONDS; undefined: no limit) bounds what processing one sound
 * costs: the mono signal (4 bytes a sample at 44.1 kHz, 10.6 MB a minute) and its analysis are held
 * in memory, and compressed silence makes hours of audio out of a few kilobytes.
 */

/**
 * How far past a header's stated length a decode may run before the file is judged to lie. Every
 * container but mp3 states its length exactly (a few samples of rounding); an mp3 without a
 * frame-count header has its length estimated from its first frames' bitrate, which a VBR file
 * that starts loud and goes quiet can exceed many times over, so it is held to the limit alone.
 */
const OVERRUN_SHARE: Record<string, number> = { mp3: Number.POSITIVE_INFINITY };
const DEFAULT_OVERRUN_SHARE = 0.02;
const OVERRUN_SECONDS = 1;

/** Refuses a sound whose stated (or decoded) length is over `maxSeconds`. */
export function checkDuration(seconds: number, maxSeconds: number | undefined): void {
  if (maxSeconds === undefined || !(seconds > maxSeconds)) return;
  throw new MediaError(
    'too_long',
    `It lasts ${formatSeconds(seconds)}; the limit is ${formatSeconds(maxSeconds)}.`,
    { duration: seconds, maxDuration: maxSeconds },
  );
}

/**
 * The most seconds a decode of a file whose header states `statedSeconds` may yield: a little over
 * what it states, and never over the limit (Infinity: an mp3 with no limit). A decoder stops there
 * (ffmpeg's `-t`, the sink's cap), so a header that understates a long stream costs no more than
 * what it states.
 */
export function decodeLimitSeconds(
  type: string,
  statedSeconds: number,
  maxSeconds: number | undefined,
): number {
  const share = OVERRUN_SHARE[type] ?? DEFAULT_OVERRUN_SHARE;
  const allowed = statedSeconds * (1 + share) + OVERRUN_SECONDS;
  return maxSeconds === undefined ? allowed : Math.min(allowed, maxSeconds + OVERRUN_SECONDS);
}

/** The refusal of a decode that ran past its limit (`decodeLimitSeconds`). */
export function overrunError(statedSeconds: number, limitSeconds: number, maxSeconds?: number): MediaError {
  const details = { duration: statedSeconds, decodeLimit: limitSeconds, maxDuration: maxSeconds };
  if (maxSeconds !== undefined && limitSeconds >= maxSeconds)
    return new MediaError(
      'too_long',
      `It holds more than ${formatSeconds(maxSeconds)} of audio, the limit.`,
      details,
    );
  return new MediaError(
    'corrupt_file',
    `Its header says it lasts ${formatSeconds(statedSeconds)} but it holds more audio than that.`,
    details,
  );
}

function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${Number(seconds.toFixed(2))} s`;
  const minutes = seconds / 60;
  if (minutes < 120) return `${Number(minutes.toFixed(1))} min`;
  return `${Number((minutes / 60).toFixed(1))} h`;
}
