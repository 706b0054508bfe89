import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../webhooks/signature.ts';

/** One POST a receiver got. */
export interface ReceivedDelivery {
  body: string;
  json: { id: string; type: string; created: string; sound_id: number; data: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
  /** Whether its signature verified with the receiver's secret (when it had one). */
  verified: boolean;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * A real HTTP receiver for webhook tests and benchmarks, on 127.0.0.1: it records what it accepts,
 * answers `failWith` (a status) instead while set, and can be stopped and started on the same port
 * (a receiver that is down).
 */
export class WebhookReceiver {
  readonly accepted: ReceivedDelivery[] = [];
  /** Requests answered with a failure (while `failWith` is set). */
  refused = 0;
  failWith: number | undefined;
  secret: string | undefined;
  private server: http.Server | undefined;
  private port = 0;
  private readonly waiters = new Set<() => void>();

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (this.failWith) {
          this.refused++;
          res.writeHead(this.failWith).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        const signature = req.headers[SIGNATURE_HEADER.toLowerCase()];
        this.accepted.push({
          body,
          json: JSON.parse(body),
          headers: req.headers,
          verified:
            this.secret !== undefined &&
            typeof signature === 'string' &&
            verifyWebhookSignature(this.secret, body, signature),
          at: Date.now(),
        });
        res.writeHead(204).end();
        for (const wake of this.waiters) wake();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Down: nothing listens on its port until `start` again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `count` deliveries were accepted in all (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedDelivery[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.accepted.length < count) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(this.accepted.slice());
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${this.accepted.length} of ${count} deliveries within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}
