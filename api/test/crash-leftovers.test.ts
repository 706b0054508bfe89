import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from '@earshot/common/testing';
import { fixture } from '@earshot/fixtures';
import { createUser } from '@earshot/services';
import { afterAll, describe, expect, it } from 'vitest';
import { bearerGrant, type ServeProcess, startServeProcess } from './support/index.ts';

/**
 * Issue 31 item 9: a server killed mid-upload leaves its partial file; it must not stay for a day.
 * Each partial file is held on a lease its owner renews (upload-receiver.ts); any API process
 * sharing the data folder removes one whose lease ran out, at start and periodically. The lease is
 * twice IDLE_TIMEOUT_MS, shortened here so the test takes seconds.
 */

const IDLE_MS = 1000;
const env = { IDLE_TIMEOUT_MS: String(IDLE_MS), WORKER_CONCURRENCY: '1' };
const started: ServeProcess[] = [];

afterAll(async () => {
  // The later processes first: the first one's stop removes the shared data folder.
  for (const p of started.reverse()) await Promise.race([p.stop(), sleep(30_000)]);
});

const BOUNDARY = 'crash-boundary';

async function partials(dataDir: string): Promise<Array<{ name: string; size: number }>> {
  const dir = path.join(dataDir, 'uploads', 'incoming');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const out = [];
  for (const name of names.filter((n) => n.endsWith('.partial'))) {
    const stat = await fs.stat(path.join(dir, name)).catch(() => undefined);
    if (stat) out.push({ name, size: stat.size });
  }
  return out;
}

async function until<T>(what: string, ms: number, check: () => Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms`);
    await sleep(100);
  }
}

describe('a server killed mid-upload', () => {
  it('leaves a partial file that the next server process removes, then keeps sweeping', async () => {
    const first = await startServeProcess(env);
    started.push(first);
    await createUser(first.catalogue.db, { username: 'uploader', email: 'uploader@example.org' });
    const { accessToken } = await bearerGrant(first.catalogue.db, first.origin, 'uploader');

    // Half of an upload arrives, then the server dies with SIGKILL: no handler runs.
    const wav = await fs.readFile(fixture('fmt-wav-16'));
    const body = Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="audiofile"; filename="a.wav"\r\n\r\n`,
      ),
      wav,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const url = new URL(first.origin);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    socket.write(
      `POST /apiv2/sounds/upload/ HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${accessToken}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, Math.floor(body.length / 2)));
    const [left] = await until('the partial file', 30_000, async () => {
      const found = await partials(first.dataDir);
      return found.length === 1 && found[0].size > 0 ? found : undefined;
    });
    process.kill(first.pid, 'SIGKILL');
    await until('the server exiting', 30_000, async () => !processAlive(first.pid));
    socket.destroy();
    expect((await partials(first.dataDir)).map((p) => p.name)).toEqual([left.name]);

    // Another server on the same data folder: the dead one's lease runs out and the file goes.
    const second = await startServeProcess({ ...env, DATA_DIR: first.dataDir });
    started.push(second);
    await until(
      'the dead upload being swept',
      60_000,
      async () => (await partials(first.dataDir)).length === 0,
    );

    // Not only at start: a partial file whose owner (another process, another host) stops
    // renewing it is swept by the running server too.
    const orphan = path.join(first.dataDir, 'uploads', 'incoming', 'elsewhere.partial');
    await fs.writeFile(orphan, Buffer.alloc(4096));
    await until('the orphan being swept while the server runs', 60_000, async () =>
      fs.stat(orphan).then(
        () => false,
        () => true,
      ),
    );
  }, 600_000);
});
