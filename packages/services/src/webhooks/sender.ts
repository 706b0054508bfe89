import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookTarget } from './targets.ts';

/** What a receiver answered: its status (no redirect is followed: a 3xx is a failed delivery). */
export interface WebhookResponse {
  status: number;
}

/** The HTTP side of deliveries: one POST, to the address its target was checked at. */
export interface WebhookSender {
  post(
    target: WebhookTarget,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<WebhookResponse>;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Node's own HTTP client: the connection goes to the checked address whatever the name resolves to
 * now (the Host header and TLS name stay the URL's), the whole exchange has one deadline, and the
 * answer's body is read and dropped (at most 64 KiB) so the socket is freed.
 */
export const httpWebhookSender: WebhookSender = {
  post(target, body, headers, timeoutMs) {
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
          { address: target.address, family: target.family },
        ]);
      else callback(null, target.address, target.family);
    };
    const client = target.url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.request(
        target.url,
        {
          method: 'POST',
          lookup: pinned,
          agent: false,
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
          },
          signal: AbortSignal.timeout(timeoutMs),
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) res.destroy();
          });
          res.on('close', () => resolve({ status: res.statusCode ?? 0 }));
          res.on('error', () => resolve({ status: res.statusCode ?? 0 }));
        },
      );
      req.on('error', (err) =>
        reject(err.name === 'AbortError' ? new Error(`no answer within ${timeoutMs} ms`) : err),
      );
      req.end(body);
    });
  },
};
