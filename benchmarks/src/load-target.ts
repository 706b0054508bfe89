import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local server the load generators' tests aim at. */
export interface LoadTarget {
  origin: string;
  close(): Promise<void>;
}

/**
 * A real node:http server answering `{"ok":true}` on every path and a 404 with a `detail` on
 * `/missing`. `look` sees each request first, and may answer it itself (then it returns true).
 */
export async function startLoadTarget(
  look: (req: http.IncomingMessage, res: http.ServerResponse) => boolean | undefined = () => undefined,
): Promise<LoadTarget> {
  const server = http.createServer((req, res) => {
    if (look(req, res)) return;
    const missing = req.url === '/missing';
    const body = missing ? '{"detail":"Not found"}' : '{"ok":true}';
    res.writeHead(missing ? 404 : 200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
