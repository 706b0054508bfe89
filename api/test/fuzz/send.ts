import http from 'node:http';
import type { FuzzRequest } from './generate.ts';

export interface FuzzResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Sends a request as written, raw path bytes included (node:http sends characters up to U+00FF as
 * single bytes), with no client-side cleaning; a reset or timeout is answered as status 0.
 */
export function send(
  origin: URL,
  req: FuzzRequest,
  agent: http.Agent,
  timeoutMs = 30_000,
): Promise<FuzzResponse> {
  return new Promise((resolve) => {
    let r: http.ClientRequest;
    try {
      r = http.request(
        {
          host: origin.hostname,
          port: origin.port,
          method: req.method,
          path: req.path,
          headers: {
            ...req.headers,
            ...(req.body ? { 'content-length': String(req.body.length) } : {}),
            ...pick(req.headers, 'content-length'),
          },
          agent,
          timeout: timeoutMs,
          setHost: !('host' in req.headers),
        },
        (res) => {
          // An event stream (`/apiv2/me/events/`) has no end: its first lines are the answer.
          if (String(res.headers['content-type']).startsWith('text/event-stream')) {
            const first = (c?: Buffer) => {
              resolve({
                status: res.statusCode ?? 0,
                contentType: 'text/event-stream',
                body: c?.toString('utf8') ?? '',
              });
              res.destroy();
            };
            // A HEAD answer ends with no data.
            res.once('data', first);
            res.once('end', () => first());
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            // The body is read only to look into it: a few hundred KB is plenty.
            if (size < 512_000) chunks.push(c);
            size += c.length;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', () => resolve({ status: 0, contentType: '', body: 'response error' }));
        },
      );
    } catch (err) {
      // node:http refused to send it (a character it does not allow): not the server's doing.
      resolve({ status: -1, contentType: '', body: String(err) });
      return;
    }
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', (err) => resolve({ status: 0, contentType: '', body: String(err) }));
    if (req.body && !('content-length' in req.headers)) r.end(req.body);
    else r.end();
  });
}

function pick(headers: Record<string, string>, name: string): Record<string, string> {
  return name in headers ? { [name]: headers[name] } : {};
}
