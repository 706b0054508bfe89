import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';

const signals = new AsyncLocalStorage<AbortSignal>();

/**
 * The signal of the request being served: aborted when its client goes away before the answer
 * is sent. The database work of a search is charged to it (adapters/search-engine.ts), so a
 * client that hangs up leaves no statement running for it.
 */
export function requestSignal(): AbortSignal | undefined {
  return signals.getStore();
}

/** Runs `serve` with the requestSignal() of the request that `res` answers. */
export function underRequestSignal<T>(res: ServerResponse, serve: () => T): T {
  const controller = new AbortController();
  // 'close' before the answer is finished: the connection went away under the request.
  const onClose = () => {
    if (!res.writableFinished) controller.abort();
  };
  res.once('close', onClose);
  return signals.run(controller.signal, serve);
}

/** Serves every request of the application with its own requestSignal(). */
export function abortOnDisconnect() {
  return (ctx: Context, next: Next) => underRequestSignal(ctx.res, next);
}
