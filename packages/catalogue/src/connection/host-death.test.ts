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

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('the embedded host dies while another process uses the database', () => {
  it('fails only the statements under way; the follower lives on and hosts the database itself', async () => {
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
});
