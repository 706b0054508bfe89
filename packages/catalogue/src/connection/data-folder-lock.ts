import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EarshotError } from '@earshot/common';
import type { HostAddress } from './pglite-host.ts';

/** What a process wants from the embedded database: long-lived roles prefer to host it themselves. */
export type CatalogueRole = 'server' | 'worker' | 'command';

/** The content of `<DATA_DIR>/catalogue.lock`: who hosts the embedded database and where. */
export interface LockRecord {
  pid: number;
  /** A pid means something only on its own machine. */
  hostname: string;
  role: CatalogueRole;
  /** A human description of the owner, for "waiting for …" messages. */
  command: string;
  since: string;
  /** Null while the owner is still opening the database. */
  address: HostAddress | null;
}

const LOCK_NAME = 'catalogue.lock';
// A lock file with unparseable content younger than this may still be being written.
const HALF_WRITTEN_GRACE_MS = 2000;
// A takeover marker older than this was left by a process that died mid-takeover.
const TAKEOVER_STALE_MS = 5000;

export function lockPath(dataDir: string): string {
  return path.join(dataDir, LOCK_NAME);
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The current owner record, or null when the folder is free or the file is not (yet) readable. */
export function readLock(dataDir: string): LockRecord | null {
  try {
    return JSON.parse(fs.readFileSync(lockPath(dataDir), 'utf8')) as LockRecord;
  } catch {
    return null;
  }
}

/**
 * The exclusive right to host a data folder's embedded database. Taken with an O_EXCL create,
 * so exactly one process wins; a lock whose pid is dead is taken over.
 */
export class DataFolderLock {
  readonly #dataDir: string;
  #record: LockRecord;
  #released = false;
  readonly #onExit = () => this.#unlinkIfOurs();

  private constructor(dataDir: string, record: LockRecord) {
    this.#dataDir = dataDir;
    this.#record = record;
    // An exit without close() (process.exit, an uncaught error) must not leave a lock that looks live.
    process.once('exit', this.#onExit);
  }

  /** Takes the lock, or returns the live owner's record. */
  static async acquire(
    dataDir: string,
    wanted: Omit<LockRecord, 'pid' | 'hostname' | 'since' | 'address'>,
  ): Promise<DataFolderLock | LockRecord> {
    // A data folder this process creates is this account's alone (the database, keys and uploads).
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = lockPath(dataDir);
    for (;;) {
      const record: LockRecord = {
        ...wanted,
        pid: process.pid,
        hostname: os.hostname(),
        since: new Date().toISOString(),
        address: null,
      };
      try {
        fs.writeFileSync(file, JSON.stringify(record), { flag: 'wx', mode: 0o600 });
        return new DataFolderLock(dataDir, record);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = readLock(dataDir);
      if (owner && owner.hostname !== undefined && owner.hostname !== os.hostname()) {
        throw new EarshotError(
          `the embedded database in ${dataDir} is in use by a process on ${owner.hostname}; ` +
            'processes on several machines must share a PostgreSQL server (DATABASE_URL) instead',
          'catalogue_elsewhere',
          503,
        );
      }
      if (owner && isProcessAlive(owner.pid)) return owner;
      if (!owner && ageMs(file) < HALF_WRITTEN_GRACE_MS) {
        await sleep(20);
        continue;
      }
      await removeStaleLock(dataDir, owner);
    }
  }

  get record(): LockRecord {
    return this.#record;
  }

  /** Tells other processes where to connect; written atomically so readers never see half a file. */
  publish(address: HostAddress): void {
    this.#record = { ...this.#record, address };
    const tmp = `${lockPath(this.#dataDir)}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.#record), { mode: 0o600 });
    fs.renameSync(tmp, lockPath(this.#dataDir));
  }

  release(): void {
    this.#unlinkIfOurs();
    process.off('exit', this.#onExit);
  }

  #unlinkIfOurs(): void {
    if (this.#released) return;
    this.#released = true;
    const current = readLock(this.#dataDir);
    if (current && current.pid === this.#record.pid && current.since === this.#record.since) {
      fs.rmSync(lockPath(this.#dataDir), { force: true });
    }
  }
}

/**
 * Removes a lock whose owner is gone. Several processes may find the same stale lock at once; a
 * takeover marker (O_EXCL) lets one of them re-check and remove it, so a fresh lock taken by a
 * faster process is never removed by mistake.
 */
export async function removeStaleLock(dataDir: string, stale: LockRecord | null): Promise<void> {
  const file = lockPath(dataDir);
  const marker = `${file}.takeover`;
  try {
    fs.writeFileSync(marker, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (ageMs(marker) > TAKEOVER_STALE_MS) fs.rmSync(marker, { force: true });
    else await sleep(20);
    return;
  }
  try {
    const current = readLock(dataDir);
    // An unreadable file is only stale when old: a young one may be a new owner's lock being written.
    const unchanged =
      stale === null
        ? current === null && ageMs(file) >= HALF_WRITTEN_GRACE_MS
        : current?.pid === stale.pid && current.since === stale.since;
    if (unchanged) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(marker, { force: true });
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
