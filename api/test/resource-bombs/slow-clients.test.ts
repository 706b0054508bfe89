import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fixture } from '@earshot/fixtures';
import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken, startTestServer, type TestServer } from '../support/index.ts';

/**
 * Slow clients against real sockets (issue 31 item 6). A connection is cut when it stops moving
 * (IDLE_TIMEOUT_MS), not after a total time: an upload or a download that keeps going is served
 * however long it takes, one that stalls is cut, and its partial file removed. Ordinary requests
 * keep their total time (REQUEST_TIMEOUT_MS). Both are shortened here so the test takes seconds:
 * every slow transfer below lasts several times longer than either.
 */

const IDLE_MS = 1500;
const TOTAL_MS = 2000;

let s: TestServer;
let token: string;
let wav: Buffer;
const queue = recordingQueue();

beforeAll(async () => {
  s = await startTestServer(
    {
      OAUTH2_HTTPS_ONLY: 'false',
      IDLE_TIMEOUT_MS: String(IDLE_MS),
      REQUEST_TIMEOUT_MS: String(TOTAL_MS),
    },
    { queue: queue.queue },
  );
  token = await bearerToken(s, 'alice');
  s.server.on('connection', (socket: net.Socket) => serverSide.set(socket.remotePort ?? 0, socket));
  wav = await fs.readFile(fixture('fmt-wav-16'));
}, 600_000);
afterAll(() => s?.stop());

const BOUNDARY = 'slow-client-boundary';

function uploadBody(): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="audiofile"; filename="slow.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    wav,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** A client on a raw socket: what it has read so far, and whether the server closed it. */
interface RawClient {
  socket: net.Socket;
  /** The client's port, kept: a socket the peer has reset no longer reports it. */
  port: number;
  received: () => Buffer;
  closed: Promise<void>;
}

async function connect(): Promise<RawClient> {
  const url = new URL(s.origin);
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, port: socket.localPort ?? 0, received: () => Buffer.concat(chunks), closed };
}

function requestHead(method: string, target: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ Host: new URL(s.origin).host, ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** Writes `body` in `steps` pieces spread over `ms`. */
async function trickle(socket: net.Socket, body: Buffer, steps: number, ms: number): Promise<void> {
  const size = Math.ceil(body.length / steps);
  for (let at = 0; at < body.length; at += size) {
    socket.write(body.subarray(at, at + size));
    await sleep(ms / steps);
  }
}

/** Resolves within `ms`, or says what did not happen. */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The server's side of each connection, by the client's port. */
const serverSide = new Map<number, net.Socket>();

/** Whether the server has let the client's connection go (its own socket destroyed). */
function serverLetGo(client: RawClient): boolean {
  return serverSide.get(client.port)?.destroyed ?? false;
}

async function incoming(): Promise<string[]> {
  return fs.readdir(path.join(s.dataDir, 'uploads', 'incoming')).catch(() => []);
}

describe('an upload', () => {
  it('that keeps going is received however long it takes (here 3 × the total and idle times)', async () => {
    const body = uploadBody();
    const client = await connect();
    client.socket.write(
      requestHead('POST', '/apiv2/sounds/upload/', {
        Authorization: `Bearer ${token}`,
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        'Content-Length': body.length,
        Connection: 'close',
      }),
    );
    await trickle(client.socket, body, 30, 3 * TOTAL_MS);
    await within(30_000, 'the answer', client.closed);
    const answer = client.received().toString();
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"filename":"slow.wav"');
  });

  it('that stalls is cut after the idle time, and its partial file is removed', async () => {
    const body = uploadBody();
    const client = await connect();
    client.socket.write(
      requestHead('POST', '/apiv2/sounds/upload/', {
        Authorization: `Bearer ${token}`,
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        'Content-Length': body.length,
      }),
    );
    await trickle(client.socket, body.subarray(0, body.length / 2), 4, 400);
    // Half the file is on its way to disk, then nothing more comes.
    await within(30_000, 'the server closing the stalled upload', client.closed);
    await within(
      10_000,
      'the partial file going',
      waitFor(async () => (await incoming()).length === 0),
    );
  });
});

describe('a download', () => {
  let target: string;
  let size: number;

  beforeAll(async () => {
    // A seeded sound's original made large enough to outlast the sockets' buffers.
    const id = s.seeded.ids.bd_808;
    const row = await s.catalogue.db
      .selectFrom('sounds')
      .select('original_path')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    size = 32 * 1024 * 1024;
    await fs.writeFile(path.join(s.dataDir, row.original_path), Buffer.alloc(size, 7));
    target = `/apiv2/sounds/${id}/download/`;
  });

  const get = (client: RawClient) =>
    client.socket.write(
      requestHead('GET', target, { Authorization: `Bearer ${token}`, Connection: 'close' }),
    );

  it('read slowly but steadily is sent whole (here 3 × the idle time)', async () => {
    const client = await connect();
    get(client);
    // Reads about size / (3 × idle) bytes a second: pauses of half the idle time between reads.
    const started = Date.now();
    while (Date.now() - started < 3 * IDLE_MS) {
      client.socket.pause();
      await sleep(IDLE_MS / 2);
      client.socket.resume();
      await sleep(IDLE_MS / 10);
    }
    client.socket.resume();
    await within(60_000, 'the whole download', client.closed);
    const answer = client.received();
    const headEnd = answer.indexOf('\r\n\r\n');
    expect(answer.subarray(0, headEnd).toString()).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.length - headEnd - 4).toBe(size);
  });

  it('nobody reads is cut after the idle time (the server lets the connection go)', async () => {
    const client = await connect();
    get(client);
    await sleep(300);
    client.socket.pause();
    // The client keeps its socket open and reads nothing: the server's side must go by itself.
    await within(
      30_000,
      'the server dropping the stalled download',
      waitFor(async () => serverLetGo(client)),
    );
    client.socket.destroy();
  });
});

describe('an ordinary request', () => {
  it('whose body dribbles in longer than the total time is a 408 with a detail', async () => {
    const body = Buffer.from('query=drums&page_size=3&fields=id,name');
    const client = await connect();
    client.socket.write(
      requestHead('POST', `/apiv2/search/?token=${s.seeded.apiKey}`, {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': body.length,
      }),
    );
    // A byte every 400 ms: never idle, never done.
    const dribble = (async () => {
      for (const byte of body) {
        if (client.socket.destroyed) return;
        client.socket.write(Buffer.from([byte]));
        await sleep(400);
      }
    })();
    await within(30_000, 'the 408', client.closed);
    await dribble;
    const answer = client.received().toString();
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/"detail":"The request took longer than 2 s to arrive\."/);
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(50);
}
