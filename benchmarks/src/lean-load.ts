// A lean HTTP/1.1 load generator for the benchmarks whose server shares the machine's two cores with
// it (issue 18, `serve --processes 2`). autocannon parses every response with a JavaScript HTTP
// parser and rebuilds each request; here each connection keeps one request in flight on a raw
// keep-alive socket, writes request bytes encoded once, and reads only what it needs of the answer
// (the status code and where the body ends). Less CPU per request for the load generator leaves
// more of the cores to the servers it measures. Its own CPU per request is returned, so a run can
// say how much of the machine the load took.

import net from 'node:net';

export interface LeanLoadOptions {
  /** http://host:port */
  origin: string;
  /** Request paths, taken in turn by every connection (each connection from its own offset). */
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
}

export interface LeanLoadResult {
  /** Answers received in the measured window. */
  total: number;
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  non2xx: number;
  /** Sockets that failed or answers that could not be read. */
  errors: number;
  /** This process's CPU time per answer, µs (the load generator's own cost). */
  cpuUsPerRequest: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Where the answer at the start of `buf` ends (its byte length), or -1 while it is incomplete. */
export function answerLength(buf: Buffer): number {
  const headEnd = buf.indexOf(HEADER_END);
  if (headEnd < 0) return -1;
  const head = buf.toString('latin1', 0, headEnd).toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) {
    const end = headEnd + 4 + Number(length[1]);
    return buf.length >= end ? end : -1;
  }
  if (/\r\ntransfer-encoding:\s*chunked/.test(head)) return chunkedEnd(buf, headEnd + 4);
  // No body framing: a 204/304 or a bodiless answer.
  return headEnd + 4;
}

/** The end of a chunked body starting at `at`, or -1 while the last chunk has not arrived. */
function chunkedEnd(buf: Buffer, at: number): number {
  let pos = at;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', pos, 'latin1');
    if (lineEnd < 0) return -1;
    const size = Number.parseInt(buf.toString('latin1', pos, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('a chunk size could not be read');
    if (size === 0) {
      // The last chunk's line, any trailer lines, then an empty line.
      const end = buf.indexOf(HEADER_END, lineEnd);
      return end < 0 ? -1 : end + 4;
    }
    pos = lineEnd + 2 + size + 2;
    if (pos > buf.length) return -1;
  }
}

/** Status code of the answer at the start of `buf` (`HTTP/1.1 200 …`). */
function statusOf(buf: Buffer): number {
  return (buf[9] - 48) * 100 + (buf[10] - 48) * 10 + (buf[11] - 48);
}

/**
 * `connections` keep-alive connections, each sending its next request when the previous answer has
 * arrived, for `durationS` seconds; answers still open at the end are not counted.
 */
export async function leanLoad(options: LeanLoadOptions): Promise<LeanLoadResult> {
  const url = new URL(options.origin);
  const extra = Object.entries(options.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const requests = options.paths.map((p) =>
    Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${url.host}\r\n${extra}\r\n`, 'latin1'),
  );
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let running = true;
  const open = new Set<net.Socket>();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();

  /** One connection's requests; a socket the server closes while the run goes on is replaced. */
  const connection = async (index: number) => {
    let next = index % requests.length;
    while (running) {
      let failed = false;
      await new Promise<void>((resolve) => {
        let pending: Buffer = Buffer.alloc(0);
        let sentAt = 0;
        const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
        open.add(socket);
        const send = () => {
          if (!running) {
            socket.end();
            return;
          }
          sentAt = performance.now();
          socket.write(requests[next]);
          next = (next + 1) % requests.length;
        };
        socket.on('connect', send);
        socket.on('data', (chunk: Buffer) => {
          pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
          let end: number;
          try {
            end = answerLength(pending);
          } catch {
            errors++;
            socket.destroy();
            return;
          }
          if (end < 0) return;
          if (running) {
            latencies.push(performance.now() - sentAt);
            const status = statusOf(pending);
            if (status < 200 || status > 299) non2xx++;
          }
          pending = pending.subarray(end);
          send();
        });
        socket.on('error', () => {
          failed = true;
          if (running) errors++;
        });
        socket.on('close', () => {
          open.delete(socket);
          resolve();
        });
      });
      // A server that refuses connections is not asked again at once.
      if (failed && running) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const all = Array.from({ length: options.connections }, (_, i) => connection(i));
  await new Promise((resolve) => setTimeout(resolve, options.durationS * 1000));
  running = false;
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const total = latencies.length;
  // Answers still on their way get a few seconds; then their sockets are closed.
  await Promise.race([Promise.all(all), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  for (const socket of open) socket.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(total - 1, Math.floor(q * total))] ?? 0;
  return {
    total,
    rps: total / elapsed,
    p50: Math.round(at(0.5) * 10) / 10,
    p99: Math.round(at(0.99) * 10) / 10,
    non2xx,
    errors,
    cpuUsPerRequest: total ? (cpu.user + cpu.system) / total : 0,
  };
}
