import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { createApiCredential } from '@earshot/services';
import { PrivatePostgres, PrivateRedis } from '@earshot/workers/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The API's own dependencies failing under it while it serves: `earshot serve` on a PostgreSQL
 * server and a Redis of the test's own, each killed (SIGKILL) mid-load and started again. Redis
 * gone: the rate limits count in memory and every request is answered as before. The database
 * gone: every request that needs it is a 503 with a `detail` and Retry-After (not a 500, not a
 * hang), the process stays up and says it is not ready, and it serves again once the database is
 * back, without a restart.
 */
const bin = fileURLToPath(new URL('../../bin/earshot.mjs', import.meta.url));
const DB_DOWN_DETAIL = 'The service cannot reach its database at the moment. Please try again shortly.';

interface Answer {
  status: number;
  detail?: unknown;
  retryAfter: string | null;
  ms: number;
  error?: string;
}

describe.skipIf(!PrivatePostgres.available())('the API with its database and Redis killed under load', () => {
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let child: ChildProcess;
  let origin = '';
  let output = '';
  /** One credential per load run: each stays under its per-minute limit (elevated: 300). */
  const keys: string[] = [];
  let key = '';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-api-deps-'));

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start()]);
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE earshot');
    await admin.end();
    child = spawn(process.execPath, [bin, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: postgres.url('earshot'),
        REDIS_URL: redis.url,
        DATA_DIR: dataDir,
        PORT: '0',
        DEMO_IMPORT: 'false',
        LOG_LEVEL: 'warn',
      },
    });
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 90_000);
      child.stdout?.on('data', () => {
        const match = /is serving on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${output}`)));
    });
    const catalogue = await openCatalogue({
      config: { DATABASE_URL: postgres.url('earshot'), dataDir },
      logger: createLogger('silent'),
      role: 'command',
    });
    try {
      for (let i = 0; i < 4; i++) {
        const app = await createApiCredential(catalogue.db, {
          username: 'client',
          name: `client ${i}`,
          redirectUri: 'http://x/',
          level: 'elevated',
        });
        keys.push(app.client_secret);
      }
    } finally {
      await catalogue.close();
    }
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await Promise.all([postgres?.stop(), redis?.stop()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function ask(pathAndQuery: string): Promise<Answer> {
    const started = Date.now();
    try {
      const res = await fetch(`${origin}${pathAndQuery}`, {
        headers: { Authorization: `Token ${key}` },
        signal: AbortSignal.timeout(20_000),
      });
      const text = await res.text();
      let detail: unknown;
      try {
        detail = (JSON.parse(text) as { detail?: unknown }).detail;
      } catch {
        detail = text.slice(0, 200);
      }
      return {
        status: res.status,
        detail,
        retryAfter: res.headers.get('Retry-After'),
        ms: Date.now() - started,
      };
    } catch (err) {
      return { status: 0, retryAfter: null, ms: Date.now() - started, error: (err as Error).message };
    }
  }

  /**
   * Four clients asking distinct requests that each need the database while `during` runs, about
   * 50 a second in all (a credential of its own for each run keeps them under the rate limit).
   */
  async function underLoad(during: () => Promise<void>): Promise<Answer[]> {
    key = keys.shift() as string;
    const answers: Answer[] = [];
    let done = false;
    let n = 0;
    const client = async () => {
      while (!done) {
        const i = n++;
        answers.push(
          await ask(i % 2 ? `/apiv2/sounds/${1000 + i}/` : `/apiv2/search/?query=word${i}&fields=id`),
        );
        await new Promise((r) => setTimeout(r, 80));
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((r) => setTimeout(r, 500));
    await during();
    await new Promise((r) => setTimeout(r, 1500));
    done = true;
    await Promise.all(clients);
    return answers;
  }

  const statuses = (answers: Answer[]) => [...new Set(answers.map((a) => a.status))].sort();

  it('answers every request as before while Redis is down (rate limits counted in memory)', async () => {
    const answers = await underLoad(async () => {
      await redis.down();
      await new Promise((r) => setTimeout(r, 1500));
    });
    expect(answers.length).toBeGreaterThan(8);
    expect(statuses(answers)).toEqual([200, 404]);
    const after = await fetch(`${origin}/apiv2/search/?query=after`, {
      headers: { Authorization: `Token ${key}` },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('X-RateLimit-Limit')).not.toBeNull();
    await redis.up();
  }, 60_000);

  it('answers 503 with a detail and Retry-After while the database is down, and serves again once it is back', async () => {
    let health: Answer | undefined;
    let ready: Answer | undefined;
    const answers = await underLoad(async () => {
      await postgres.down();
      await new Promise((r) => setTimeout(r, 1500));
      health = await ask('/health');
      ready = await ask('/ready');
    });
    // Before the kill the requests were answered; after it, every one that needed the database
    // was a 503 that says what is wrong. Nothing else: no 500, no dropped connection, no hang.
    expect(
      statuses(answers).every((s) => [200, 404, 503].includes(s)),
      JSON.stringify(statuses(answers)),
    ).toBe(true);
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const a of refused) {
      expect(a.detail).toBe(DB_DOWN_DETAIL);
      expect(a.retryAfter).toBe('5');
    }
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(12_000);
    expect(health?.status).toBe(200);
    expect(ready?.status).toBe(503);
    // A web page says the same in HTML.
    const page = await fetch(`${origin}/search/?q=rain`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('Back in a moment');

    await postgres.up();
    const deadline = Date.now() + 30_000;
    let back = await ask('/apiv2/search/?query=back');
    while (back.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      back = await ask('/apiv2/search/?query=back');
    }
    expect(back.status).toBe(200);
    expect((await ask('/ready')).status).toBe(200);
    const again = await underLoad(async () => {});
    expect(statuses(again)).toEqual([200, 404]);
  }, 90_000);

  it('stays up through both, with no unhandled error', () => {
    expect(child.exitCode).toBeNull();
    expect(output).not.toMatch(/unhandled|uncaught|Internal server error|"level":50/i);
  });
});
