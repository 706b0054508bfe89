import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { fixture } from '@earshot/fixtures';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedEnv } from './embedded-env.ts';

/**
 * The embedded mode's hand-over under load with jobs running: two `earshot serve` on one data folder
 * (the first hosts the database, the second follows it), both running the in-process pipeline, a
 * dozen sounds queued by `earshot import --no-wait`, requests to the follower all the while; then
 * the host is killed (SIGKILL) mid-processing. The follower lives on and hosts the database itself;
 * what it answers meanwhile is an answer or a 503 that says why, never a 500 or a dropped
 * connection; and every sound ends Processed, the dead host's ones taken over when their lease ran
 * out, with no stage's scratch files left behind.
 */
const main = fileURLToPath(new URL('../main.ts', import.meta.url));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-host-death-'));
const inputs = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-host-death-in-'));
const children: ChildProcess[] = [];
const SOUNDS = 12;

const env = () => embeddedEnv(dataDir);

function earshot(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { env: env(), encoding: 'utf8' });
}

async function serve(): Promise<{ child: ChildProcess; origin: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve'], { env: env() });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}`)), 90_000);
    child.stdout?.on('data', () => {
      const match = /is serving on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${out}`)));
  });
  return { child, origin, output: () => out };
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(inputs, { recursive: true, force: true });
});

describe('the embedded host killed under load while sounds are processing', () => {
  it('leaves the follower serving and hosting, and every sound processed', async () => {
    const host = await serve();
    const follower = await serve();
    expect(earshot(['users', 'create', 'uploader', '--password', 'pw']).status).toBe(0);
    // Distinct files (a changed last byte): the catalogue refuses a file it already has.
    const source = fs.readFileSync(fixture('drums-100bpm'));
    for (let i = 0; i < SOUNDS; i++) {
      const bytes = Buffer.from(source);
      bytes[bytes.length - 1] ^= i + 1;
      fs.writeFileSync(path.join(inputs, `drums-${i}.wav`), bytes);
    }
    const queued = earshot(['import', inputs, '--user', 'uploader', '--approve', '--no-wait']);
    expect(queued.status, queued.stderr).toBe(0);

    const answers: { status: number; error?: string; at: number }[] = [];
    let killedAt = 0;
    let done = false;
    const client = async (n: number) => {
      for (let i = 0; !done; i++) {
        const url =
          i % 3 === 0
            ? `${follower.origin}/search/?q=drums&page=${1 + (i % 2)}`
            : i % 3 === 1
              ? `${follower.origin}/people/uploader/`
              : `${follower.origin}/people/uploader/sounds/${1 + ((i + n) % SOUNDS)}/`;
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
          await res.arrayBuffer();
          answers.push({ status: res.status, at: Date.now() });
        } catch (err) {
          answers.push({ status: 0, error: (err as Error).message, at: Date.now() });
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const clients = [client(0), client(1), client(2)];
    // Kill the host once processing is under way.
    await new Promise((r) => setTimeout(r, 3_000));
    killedAt = Date.now();
    host.child.kill('SIGKILL');
    await new Promise((r) => host.child.once('exit', r));
    // Load on until the follower has answered a while as the new host (starting the database from
    // the folder takes it a few seconds; requests wait meanwhile, and are answered).
    const served = () =>
      answers.filter((a) => a.at > killedAt && (a.status === 200 || a.status === 404)).length;
    const deadline = Date.now() + 60_000;
    while (served() < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    done = true;
    await Promise.all(clients);

    const after = answers.filter((a) => a.at > killedAt);
    const statuses = [...new Set(after.map((a) => a.status))].sort();
    expect(served()).toBeGreaterThanOrEqual(12);
    expect(
      statuses.every((s) => s === 200 || s === 404 || s === 503),
      `${JSON.stringify(statuses)} ${JSON.stringify(after.find((a) => a.error))}`,
    ).toBe(true);
    expect(after.slice(-5).every((a) => a.status === 200 || a.status === 404)).toBe(true);
    expect(follower.child.exitCode).toBeNull();

    // Every sound ends processed: the follower's runner takes over the dead host's leases.
    const catalogue = await openCatalogue({
      config: { dataDir },
      logger: createLogger('silent'),
      role: 'command',
    });
    try {
      const deadline = Date.now() + 150_000;
      let states: { id: number; processing_state: string; processing_error: string | null }[] = [];
      for (;;) {
        states = await catalogue.db
          .selectFrom('sounds')
          .select(['id', 'processing_state', 'processing_error'])
          .orderBy('id')
          .execute();
        if (states.every((s) => s.processing_state === 'Processed' || s.processing_state === 'Failed')) break;
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      expect(states).toHaveLength(SOUNDS);
      expect(
        states.filter((s) => s.processing_state !== 'Processed'),
        JSON.stringify(states),
      ).toEqual([]);
    } finally {
      await catalogue.close();
    }
    const leftovers = fs
      .readdirSync(path.join(dataDir, 'sounds'), { recursive: true })
      .map(String)
      .filter((p) => p.split(path.sep).includes('work'));
    expect(leftovers).toEqual([]);
    expect(follower.output()).not.toMatch(/unhandled|uncaught|"level":50/i);
  }, 300_000);
});
