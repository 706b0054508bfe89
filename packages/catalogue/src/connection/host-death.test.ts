import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createLogger } from '@earshot/common';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDataDir } from '../testing/index.ts';
import { type Catalogue, openCatalogue } from './open-catalogue.ts';

const WRITER = new URL('../testing/writer-process.ts', import.meta.url).pathname;

const children: ChildProcess[] = [];
const folders: string[] = [];
const opened: Catalogue[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A process that hosts the embedded database of `dataDir` until it is killed. */
async function startHost(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dataDir, 'server', 'host', '0', 'hold'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"event":"written"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the host exited (${code}) before it was ready`)));
  });
  return child;
}

/** A fresh data folder whose database another process hosts, and a server catalogue following it. */
async function hostAndFollower(): Promise<{ host: ChildProcess; follower: Catalogue }> {
  const dataDir = await freshDataDir();
  folders.push(dataDir);
  const host = await startHost(dataDir);
  const follower = await openCatalogue({
    config: { dataDir },
    logger: createLogger('silent'),
    role: 'server',
    description: 'host-death follower',
  });
  opened.push(follower);
  expect(follower.kind).toBe('pglite-client');
  return { host, follower };
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('the embedded host dies while another process uses the database', () => {
  it('fails only the statements under way; the follower lives on and hosts the database itself', async () => {
    const { host, follower } = await hostAndFollower();

    // A connection checked out and idle inside a transaction, and a statement running, when the host goes.
    let letGo!: () => void;
    const holding = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const idleInTransaction = follower.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await holding;
      await sql`select 2`.execute(trx);
    });
    const running = sql`select pg_sleep(5)`.execute(follower.db);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await killed(host);
    letGo();

    const [transaction, statement] = await Promise.allSettled([idleInTransaction, running]);
    // The transaction's connection went with the host: it fails with the driver's error. The
    // statement fails too, or runs on the new host if it had not reached the old one.
    expect(transaction.status).toBe('rejected');
    expect(['rejected', 'fulfilled']).toContain(statement.status);
    // The next statement finds the folder without a host and hosts it here.
    const row = await sql<{ n: number }>`select count(*)::int as n from users`.execute(follower.db);
    expect(row.rows[0].n).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('answers the statements that were waiting for a free connection when the host died (issue 19)', async () => {
    const { host, follower } = await hostAndFollower();

    // Every connection of the follower's pool (four to another process's host) checked out, held
    // in transactions; more statements queued behind them for a free connection.
    const POOL = 4;
    const QUEUED = 12;
    let letGo!: () => void;
    const holding = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    // They fail with the host; settled from the start, so that no rejection goes unhandled meanwhile.
    const held = Promise.allSettled(
      Array.from({ length: POOL }, () =>
        follower.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await holding;
        }),
      ),
    );
    // Give the transactions their connections before the others queue up.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const queued = Array.from({ length: QUEUED }, (_, i) =>
      sql<{ n: number }>`select ${i}::int as n`.execute(follower.db),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await killed(host);
    letGo();

    // Each queued statement settles: run by the new host (this process), or failed as the host's
    // death would fail it. Before the fix, those still queued when the old pool was ended waited
    // for ever (pg-pool's end() never answers its queue) while later statements were served.
    const outcomes = await Promise.race([
      Promise.allSettled(queued).then((all) => all.map((o) => o.status)),
      new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 45_000)),
    ]);
    expect(outcomes).not.toBe('still waiting');
    expect(outcomes).toEqual(Array(QUEUED).fill('fulfilled'));
    await held;
    expect(follower.kind).toBe('pglite');
    const row = await sql<{ n: number }>`select count(*)::int as n from users`.execute(follower.db);
    expect(row.rows[0].n).toBeGreaterThanOrEqual(0);
  }, 90_000);
});
