import net from 'node:net';

/** Default addresses of the services the test suites use when the environment names none. */
export const DEFAULT_TEST_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** True when a TCP connection to the URL's host and port opens within the timeout. */
export function isReachable(url: string, defaultPort: number, timeoutMs = 1500): Promise<boolean> {
  const u = new URL(url);
  const port = Number(u.port || defaultPort);
  const host = u.hostname || '127.0.0.1';
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
