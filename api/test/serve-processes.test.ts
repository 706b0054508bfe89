import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerGrant } from './support/bearer.ts';
import { type Seeded, seedCatalogue } from './support/seed.ts';

/**
 * `earshot serve --processes 2` as an operator runs it (a real process on the PostgreSQL server and
 * Redis): two workers answer, a write through one is seen through the other, a killed worker is
 * replaced, and SIGTERM to the primary drains both and exits 0 with no accepted request lost.
 */

const postgresUrl = await testService('postgres');
const redisUrl = await testService('redis');
/** `earshot serve` started by path (the API never imports the CLI). */
const CLI_MAIN = fileURLToPath(new URL('../../cli/src/main.ts', import.meta.url));

interface Answer {
  status: number;
  pid: string;
  body: string;
}

type Outcome = { kind: 'answered'; status: number } | { kind: 'refused' } | { kind: 'lost'; error: string };

/** One request on a connection of its own (`agent: false`), so the primary hands it to the next worker. */
function fresh(
  origin: string,
  route: string,
  init: { method?: string; token?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${origin}${route}`,
      {
        agent: false,
        method: init.method ?? 'GET',
        headers: init.token ? { Authorization: init.token } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, pid: String(res.headers['x-earshot-pid']), body }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${route} in 10 s`)));
    req.end();
  });
}

function keepAlive(agent: http.Agent, origin: string, route: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(`${origin}${route}`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ kind: 'answered', status: res.statusCode ?? 0 }));
      res.on('error', (err) => resolve({ kind: 'lost', error: String(err) }));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'lost', error: `${err.code} ${err}` },
      ),
    );
  });
}

describe.skipIf(!postgresUrl || !redisUrl)('earshot serve --processes 2', () => {
  let database: { url: string; drop(): Promise<void> };
  let dataDir: string;
  let catalogue: Catalogue;
  let seeded: Seeded;
  let child: ChildProcess;
  let out = '';
  let origin: string;

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl as string);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-processes-test-'));
    catalogue = await openCatalogue({
      config: loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir }),
      logger: createLogger('silent'),
      role: 'command',
    });
    seeded = await seedCatalogue(catalogue, dataDir);
    child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, 'serve', '--processes', '2'], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl,
        DATA_DIR: dataDir,
        PORT: '0',
        DEMO_IMPORT: 'false',
        OAUTH2_HTTPS_ONLY: 'false',
        LOG_LEVEL: 'warn',
        EARSHOT_SERVED_BY_HEADER: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`earshot serve did not start:\n${out}`)), 90_000);
      child.stdout?.on('data', () => {
        const match = /is serving on (http:\/\/\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`earshot serve exited with ${code}:\n${out}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await catalogue?.close();
    await database?.drop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function pidsAnswering(count: number): Promise<Set<string>> {
    const pids = new Set<string>();
    for (let i = 0; i < count; i++) {
      const answer = await fresh(origin, '/health');
      expect(answer.status).toBe(200);
      pids.add(answer.pid);
    }
    return pids;
  }

  it('answers from two worker processes, neither of them the primary', async () => {
    const pids = await pidsAnswering(8);
    expect(pids.size).toBe(2);
    expect(pids.has(String(child.pid))).toBe(false);
    // /metrics is per process: its pid label is the process that answered.
    const metrics = await fresh(origin, '/metrics');
    expect(metrics.body).toContain(`pid="${metrics.pid}"`);
  });

  it('shows a rating made through one worker on the next answer of the other', async () => {
    const id = seeded.ids.bd_808;
    const route = `/apiv2/sounds/${id}/?fields=id,num_ratings`;
    const token = `Token ${seeded.apiKey}`;
    // Both workers have the sound cached before the write.
    const before = new Map<string, number>();
    for (let i = 0; i < 6; i++) {
      const answer = await fresh(origin, route, { token });
      expect(answer.status, answer.body).toBe(200);
      before.set(answer.pid, JSON.parse(answer.body).num_ratings);
    }
    expect([...before.values()]).toEqual([0, 0]);

    const grant = await bearerGrant(catalogue.db, origin, 'bob', { level: 'unlimited' });
    const rated = await fresh(origin, `/apiv2/sounds/${id}/rate/?rating=4`, {
      method: 'POST',
      token: `Bearer ${grant.accessToken}`,
    });
    expect(rated.status, rated.body).toBe(200);
    let other: Answer | undefined;
    while (!other) {
      const answer = await fresh(origin, route, { token });
      if (answer.pid !== rated.pid) other = answer;
    }
    expect(JSON.parse(other.body).num_ratings).toBe(1);
  });

  it('replaces a worker that dies', async () => {
    const before = await pidsAnswering(4);
    const [victim] = [...before];
    process.kill(Number(victim), 'SIGKILL');
    // A connection the primary hands to a worker at the moment it dies is lost with it (the
    // primary has not yet seen the exit): ask again once it has.
    while (!out.includes('HTTP worker died')) await new Promise((resolve) => setTimeout(resolve, 50));
    const deadline = Date.now() + 20_000;
    let now = new Set<string>();
    while (Date.now() < deadline) {
      now = await pidsAnswering(4);
      if (now.size === 2 && !now.has(victim)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(now.size).toBe(2);
    expect(now.has(victim)).toBe(false);
  }, 30_000);

  it('is not ready (/ready 503, processes loading) from a worker death until its replacement is ready', async () => {
    const ready = async () => {
      const answer = await fresh(origin, '/ready');
      return { ...answer, checks: JSON.parse(answer.body).checks as Record<string, string> };
    };
    // Both workers ready (the one the previous test started may still be loading), each saying so.
    const readyPids = async () => {
      const pids = new Set<string>();
      const deadline = Date.now() + 20_000;
      while (pids.size < 2 && Date.now() < deadline) {
        const answer = await ready();
        if (answer.status === 200) {
          expect(answer.checks.processes).toBe('ok');
          pids.add(answer.pid);
        } else await new Promise((r) => setTimeout(r, 100));
      }
      return pids;
    };
    const [victim] = [...(await readyPids())];
    const deaths = out.split('HTTP worker died').length;
    process.kill(Number(victim), 'SIGKILL');
    while (out.split('HTTP worker died').length === deaths) await new Promise((r) => setTimeout(r, 50));
    // The survivor answers, and says the host is not ready: a balancer keeps it out of rotation
    // rather than let connections reach a replacement whose similarity indexes are still loading.
    let survivor: Awaited<ReturnType<typeof ready>> | undefined;
    while (!survivor) {
      const answer = await ready();
      if (answer.pid !== victim) survivor = answer;
    }
    expect(survivor.status, survivor.body).toBe(503);
    expect(survivor.checks.processes).toBe('loading');
    const after = await readyPids();
    expect(after.size).toBe(2);
    expect(after.has(victim)).toBe(false);
  }, 30_000);

  it('drains both workers on SIGTERM to the primary and exits 0, every accepted request answered', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
    const outcomes: Outcome[] = [];
    let stopped = false;
    const warm = await Promise.all(Array.from({ length: 20 }, () => keepAlive(agent, origin, '/health')));
    expect(warm.every((o) => o.kind === 'answered')).toBe(true);
    const clients = Array.from({ length: 20 }, async () => {
      while (!stopped) {
        const outcome = await keepAlive(agent, origin, '/ready');
        outcomes.push(outcome);
        if (outcome.kind !== 'answered') return;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const answeredBefore = outcomes.length;
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await exited;
    const ms = Date.now() - started;
    stopped = true;
    await Promise.all(clients);
    agent.destroy();

    expect(answeredBefore).toBeGreaterThan(20);
    expect(code, out).toBe(0);
    expect(ms).toBeLessThan(15_000);
    expect(outcomes.filter((o) => o.kind === 'lost')).toEqual([]);
    for (const o of outcomes) if (o.kind === 'answered') expect(o.status).toBe(200);
  }, 60_000);
});

describe('earshot serve --processes 2 without the PostgreSQL server or Redis', () => {
  it('refuses to start, exit code 2, naming what is missing', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: os.tmpdir(), PORT: '0', LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, 'serve', '--processes', '2'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--processes 2 needs DATABASE_URL and REDIS_URL');
  }, 30_000);

  it('refuses a process count that is not a whole number from 1 to 64', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, 'serve', '--processes', '0'], {
      env: { ...process.env, DATA_DIR: os.tmpdir(), PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--processes must be a whole number from 1 to 64, not "0"');
  }, 30_000);
});
