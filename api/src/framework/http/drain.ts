import type http from 'node:http';
import net, { type Socket } from 'node:net';

export interface Drainable {
  /** The request listener to give the server: it tracks which connections are between requests. */
  listener: http.RequestListener;
  /**
   * Stops accepting connections and answers every request that arrives on a connection already
   * open, each with `Connection: close`. After `graceMs` whatever is still open is cut. Resolves
   * when the last connection is gone.
   */
  drain: (graceMs: number) => Promise<void>;
}

/**
 * A keep-alive connection idle when the drain starts is ended after this long without a request;
 * a client that sends one meanwhile gets its answer (with `Connection: close`).
 */
const IDLE_GRACE_MS = 300;

/**
 * Graceful draining for a node:http server. Node's own close() (≥ 19) first closes every
 * connection without a request in progress, those whose request is on its way included, so a
 * request sent at the moment of a SIGTERM would be lost; here a connection is ended only after it
 * answered with `Connection: close` or stayed idle for a moment.
 */
export function drainable(server: http.Server, listener: http.RequestListener): Drainable {
  /** Open connections between two requests, with the timer that ends them while draining. */
  const idle = new Map<Socket, NodeJS.Timeout | undefined>();
  /** Connections already watched for their close (one listener each, not one per request). */
  const watched = new WeakSet<Socket>();
  let draining = false;
  const endWhenIdle = (socket: Socket) => {
    // Ended in the check phase, right after a poll phase read whatever the client sent meanwhile
    // (a loaded event loop can run this timer long after a request arrived but before it is read).
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (idle.get(socket) === timer) socket.end();
        }),
      IDLE_GRACE_MS,
    );
    timer.unref();
    idle.set(socket, timer);
  };
  return {
    listener: (req, res) => {
      const socket = req.socket;
      clearTimeout(idle.get(socket));
      idle.delete(socket);
      if (!watched.has(socket)) {
        // Once per connection: one added per request piled up on a keep-alive socket until it
        // closed (a closure per request answered on it; Node warned at 11).
        watched.add(socket);
        socket.once('close', () => {
          clearTimeout(idle.get(socket));
          idle.delete(socket);
        });
      }
      if (draining) res.setHeader('Connection', 'close');
      res.once('finish', () => {
        if (socket.destroyed) return;
        // A response that went out with keep-alive before the drain began invites one more
        // request on its connection: that one is answered (with `Connection: close`) too.
        if (draining) endWhenIdle(socket);
        else idle.set(socket, undefined);
      });
      listener(req, res);
    },
    drain: (graceMs) =>
      new Promise<void>((resolve) => {
        draining = true;
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        cut.unref();
        // net.Server's close, not http.Server's (see above): stop listening, resolve when the
        // last connection closed.
        net.Server.prototype.close.call(server, () => {
          clearTimeout(cut);
          resolve();
        });
        for (const socket of idle.keys()) endWhenIdle(socket);
      }),
  };
}
