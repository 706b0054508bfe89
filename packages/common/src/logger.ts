import { type Logger, pino } from 'pino';

export type { Logger };

/** Structured JSON logs on stderr, so stdout stays free for command output. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'earshot'): Logger {
  return pino({ name, level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: true }));
}
