import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createLogger } from '@earshot/common';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDataDir } from '../testing/index.ts';
import { isProcessAlive, lockPath, readLock } from './data-folder-lock.ts';
import { openCatalogue } from './open-catalogue.ts';

const WRITER = new URL('../testing/writer-process.ts', import.meta.url).pathname;

interface Writer {
  child: ChildProcess;
  /** Resolves with the event's payload and the time it arrived. */
  next(event: string): Promise<{ at: number; payload: Record<string, unknown> }>;
  exited: Promise<{ code: number | null; stderr: string; at: number }>;
  /** Resolves once the writer's stderr (its log) contains `text`. */
  logged(text: string): Promise<void>;
  /** Lets a writer started with `hold` close and exit. */
  release(): void;
}

const started: ChildProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  const running = started.splice(0).filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(
    running.map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL'))),
  );
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function tempDataDir(): Promise<string> {
  const dir = await freshDataDir();
  folders.push(dir);
  return dir;
}

function startWriter(dataDir: string, role: string, label: string, count: number, hold = false): Writer {
  const args = ['--import', 'tsx', WRITER, dataDir, role, label, String(count), ...(hold ? ['hold'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child);
  const seen = new Map<string, { at: number; payload: Record<string, unknown> }>();
  const waiters = new Map<string, (v: { at: number; payload: Record<string, unknown> }) => void>();
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const payload = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      const entry = { at: Date.now(), payload };
      seen.set(String(payload.event), entry);
      waiters.get(String(payload.event))?.(entry);
    }
  });
  let stderr = '';
  const logWaiters: { text: string; resolve: () => void }[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of logWaiters) if (stderr.includes(w.text)) w.resolve();
  });
  const exited = new Promise<{ code: number | null; stderr: string; at: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr, at: Date.now() })),
  );
  return {
    child,
    exited,
    release: () => child.stdin?.end('release\n'),
    logged(text) {
      if (stderr.includes(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        logWaiters.push({ text, resolve });
        void exited.then(({ code }) => reject(new Error(`writer exited (${code}) before logging "${text}"`)));
      });
    },
    next(event) {
      const already = seen.get(event);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        waiters.set(event, resolve);
        void exited.then(({ code, stderr: err }) =>
          reject(new Error(`writer exited (${code}) before "${event}": ${err}`)),
        );
      });
    },
  };
}

async function usersAndPacks(dataDir: string) {
  const catalogue = await openCatalogue({ config: { dataDir }, logger: createLogger('warn') });
  try {
    const users = await catalogue.db.selectFrom('users').select(['id', 'username']).execute();
    const packs = await catalogue.db.selectFrom('packs').select(['user_id', 'name']).execute();
    return { kind: catalogue.kind, users, packs };
  } finally {
    await catalogue.close();
  }
}

function expectAllWritten(
  result: Awaited<ReturnType<typeof usersAndPacks>>,
  expected: Record<string, number>,
): void {
  const names = new Set(result.users.map((u) => u.username));
  const total = Object.values(expected).reduce((a, b) => a + b, 0);
  expect(result.users).toHaveLength(total);
  for (const [label, count] of Object.entries(expected)) {
    for (let i = 0; i < count; i++) expect(names.has(`${label}-${i}`), `${label}-${i}`).toBe(true);
  }
  // Each transaction wrote a user and its pack: never one without the other.
  const byId = new Map(result.users.map((u) => [u.id, u.username]));
  expect(result.packs).toHaveLength(total);
  for (const pack of result.packs) expect(pack.name).toBe(`pack of ${byId.get(pack.user_id)}`);
}

describe('embedded catalogue shared by several processes', () => {
  it('serves a running server and concurrent CLI commands from one data folder without losing a write', async () => {
    const dataDir = await tempDataDir();
    const server = startWriter(dataDir, 'server', 'srv', 30, true);
    expect((await server.next('open')).payload.kind).toBe('pglite');

    const commands = ['cli1', 'cli2', 'cli3'].map((label) => startWriter(dataDir, 'command', label, 20));
    const opened = await Promise.all(commands.map((c) => c.next('open')));
    for (const o of opened) expect(o.payload.kind).toBe('pglite-client');
    for (const c of commands) expect((await c.exited).code).toBe(0);
    server.release();
    expect((await server.exited).code).toBe(0);

    expect(fs.existsSync(lockPath(dataDir))).toBe(false);
    expectAllWritten(await usersAndPacks(dataDir), { srv: 30, cli1: 20, cli2: 20, cli3: 20 });
  });

  it('makes a starting server wait for a CLI command that holds the folder, then take it over', async () => {
    const dataDir = await tempDataDir();
    const command = startWriter(dataDir, 'command', 'cmd', 20, true);
    expect((await command.next('open')).payload.kind).toBe('pglite');

    const server = startWriter(dataDir, 'server', 'srv', 20);
    await server.logged('in use by test writer cmd');
    command.release();
    const commandDone = await command.exited;
    const serverOpen = await server.next('open');
    expect(commandDone.code).toBe(0);
    expect(serverOpen.payload.kind).toBe('pglite');
    expect(serverOpen.at).toBeGreaterThanOrEqual(commandDone.at);
    expect((await server.exited).code).toBe(0);

    expectAllWritten(await usersAndPacks(dataDir), { cmd: 20, srv: 20 });
  });

  it('takes over the lock of a killed owner and keeps what it had committed', async () => {
    const dataDir = await tempDataDir();
    const owner = startWriter(dataDir, 'command', 'dead', 15, true);
    const { payload } = await owner.next('written');
    expect(payload.written).toBe(15);
    owner.child.kill('SIGKILL');
    await owner.exited;
    const stale = readLock(dataDir);
    expect(stale?.pid).toBe(owner.child.pid);
    expect(isProcessAlive(stale?.pid ?? 0)).toBe(false);

    const result = await usersAndPacks(dataDir);
    expect(result.kind).toBe('pglite');
    expectAllWritten(result, { dead: 15 });
  });
});
