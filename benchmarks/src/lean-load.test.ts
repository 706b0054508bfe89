import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerLength, leanLoad } from './lean-load.ts';
import { type LoadTarget, startLoadTarget } from './load-target.ts';

/**
 * The lean load generator against a real node:http server: answers framed by Content-Length and
 * by chunks are both read to their end (else a connection would stall after its first answer),
 * non-2xx answers are counted, the headers are sent.
 */
describe('the lean load generator', () => {
  let target: LoadTarget;
  let origin = '';
  const seen = { authorized: 0, all: 0 };

  beforeAll(async () => {
    target = await startLoadTarget((req, res) => {
      seen.all++;
      if (req.headers.authorization === 'Token k') seen.authorized++;
      if (req.url !== '/chunked') return undefined;
      // No Content-Length: node:http sends the body in chunks.
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first part, ');
      setImmediate(() => res.end('second part'));
      return true;
    });
    origin = target.origin;
  });
  afterAll(() => target.close());

  it('keeps every connection busy over answers of both framings and counts the non-2xx ones', async () => {
    const result = await leanLoad({
      origin,
      paths: ['/sound', '/chunked', '/missing'],
      headers: { Authorization: 'Token k' },
      connections: 3,
      durationS: 1,
    });
    // Each connection walks the three paths in turn: many answers each, a third of them 404s.
    expect(result.total).toBeGreaterThan(300);
    expect(result.errors).toBe(0);
    expect(result.non2xx / result.total).toBeGreaterThan(0.25);
    expect(result.non2xx / result.total).toBeLessThan(0.42);
    expect(seen.authorized).toBe(seen.all);
    expect(result.p99).toBeGreaterThanOrEqual(result.p50);
    expect(result.cpuUsPerRequest).toBeGreaterThan(0);
  });

  it('tells an incomplete answer from a whole one', () => {
    const whole = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect(answerLength(whole)).toBe(whole.length);
    expect(answerLength(whole.subarray(0, whole.length - 1))).toBe(-1);
    const chunked = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n');
    expect(answerLength(chunked)).toBe(chunked.length);
    expect(answerLength(chunked.subarray(0, chunked.length - 2))).toBe(-1);
    // Two answers in one read: the first one's length only.
    expect(answerLength(Buffer.concat([whole, whole]))).toBe(whole.length);
  });
});
