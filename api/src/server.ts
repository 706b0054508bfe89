import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createRequestListener } from './app.ts';
import type { AppDeps } from './deps.ts';
import { drainable } from './framework/http/drain.ts';
import { widenHeapHeadroom } from './framework/http/heap-headroom.ts';

export interface RunningServer {
  server: http.Server;
  /** Origin the server answers on, e.g. http://127.0.0.1:8000 */
  origin: string;
  /**
   * Stops accepting connections and lets in-flight requests finish; after `graceMs` (default 10 s)
   * the connections still open are cut. Resolves when the last connection is gone.
   */
  close: (graceMs?: number) => Promise<void>;
  /**
   * Stops accepting connections and nothing else: the ones open are served as before (no
   * `Connection: close`, so their clients do not reconnect). The first step of a cluster worker's
   * shutdown, taken by every worker before any drains (docs/operations.md); `close` follows.
   */
  stopAccepting: () => void;
}

/** Starts the HTTP server on HOST:PORT (PORT 0 picks a free port, used by tests). */
export async function startServer(deps: AppDeps): Promise<RunningServer> {
  if (!deps.config.OAUTH2_HTTPS_ONLY) {
    deps.logger.warn(
      'OAUTH2_HTTPS_ONLY=false: OAuth2 tokens are accepted over plain http. Never do this in production.',
    );
  }
  widenHeapHeadroom();
  const server = http.createServer();
  const { listener, drain } = drainable(server, createRequestListener(deps));
  // Idleness, not total time, is what ends a request's connection (a slow but steady upload or
  // download is served; a stalled one is cut): each request re-arms the socket's inactivity timer,
  // which Node answers by destroying the socket. Node sets its own between requests (keep-alive).
  const idleMs = deps.config.IDLE_TIMEOUT_MS;
  server.on('request', (req: http.IncomingMessage) => req.socket.setTimeout(idleMs));
  server.on('request', listener);
  // Keep-alive a little longer than common proxies' timeouts.
  server.keepAliveTimeout = 65_000;
  // Node's requestTimeout would cut every upload slower than its limit: the total time of ordinary
  // requests is kept by middleware/request-deadline.ts, which exempts the routes that take files.
  server.requestTimeout = 0;
  server.headersTimeout = Math.min(60_000, deps.config.REQUEST_TIMEOUT_MS);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.PORT, deps.config.HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = deps.config.HOST.includes(':') ? `[${deps.config.HOST}]` : deps.config.HOST;
  const origin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  return {
    server,
    origin,
    close: (graceMs = 10_000) => drain(graceMs),
    // net.Server's close (http.Server's would end idle keep-alive connections too, see drain.ts).
    stopAccepting: () => net.Server.prototype.close.call(server),
  };
}
