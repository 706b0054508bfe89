import type { Logger } from '@earshot/common';

/**
 * Runs `close` once on SIGTERM or SIGINT, then exits. A second signal exits at once, so an operator
 * is never stuck behind a slow shutdown. Returns a function that starts the same shutdown without a
 * signal (a cluster worker told to drain by its primary) and does nothing once it has started: a
 * worker of a terminal's Ctrl-C gets both the SIGINT and its primary's message.
 */
export function onShutdown(logger: Logger, close: () => Promise<void>): (reason: string) => void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return (reason) => {
    if (!closing) handler(reason as NodeJS.Signals);
  };
}
