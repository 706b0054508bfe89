import { type DestinationStream, type Logger, pino } from 'pino';
import { REDACTED, REDACTED_LOG_PATHS, redactUrl } from './redact.ts';

export type { Logger };

/**
 * Structured JSON logs on stderr, so stdout stays free for command output. Secrets never reach a
 * line: every `url` field has its credential parameters (`?token=`, `code=`…) masked, and the
 * fields that hold credentials (`authorization`, `client_secret`, `refresh_token`…) are replaced
 * (redact.ts). `destination` is for tests that read what was logged.
 */
export function createLogger(
  level: string = process.env.LOG_LEVEL ?? 'info',
  name = 'earshot',
  destination: DestinationStream = pino.destination({ fd: 2, sync: true }),
): Logger {
  return pino(
    {
      name,
      level,
      base: { pid: process.pid },
      redact: { paths: REDACTED_LOG_PATHS, censor: REDACTED },
      serializers: { url: redactUrl },
    },
    destination,
  );
}
