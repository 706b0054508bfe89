import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { synth } from '@earshot/core/testing';
import { reprocessFailed, SoundIntake } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { waitFor } from '../testing/wait.ts';

const postgresUrl = await testService('postgres');

/** A small tmpfs of the test's own as the data folder; undefined when mounting is not permitted. */
async function smallDisk(megabytes: number): Promise<string | undefined> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    await fs.rmdir(dir);
    return undefined;
  }
}

/** Fills the disk to the last byte with one file; returns its path. */
async function fillDisk(dir: string): Promise<string> {
  const filler = path.join(dir, 'filler.bin');
  const handle = await fs.open(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) await handle.write(chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    await handle.close();
  }
  return filler;
}

const dataDir = await smallDisk(16);

describe.skipIf(!postgresUrl || !dataDir)('a full disk while writing previews', () => {
  let database: { url: string; drop(): Promise<void> };
  let catalogue: Catalogue;
  let service: JobRunnerService;
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl!);
    catalogue = await openCatalogue({ config: { dataDir: dataDir!, DATABASE_URL: database.url }, logger });
    service = createJobRunner({
      config: { dataDir: dataDir!, REDIS_URL: undefined, WORKER_CONCURRENCY: 1 },
      logger,
      catalogue,
      policies: {
        probe: { attempts: 2, backoff: { type: 'fixed', delayMs: 100 } },
        media: { attempts: 2, backoff: { type: 'fixed', delayMs: 100 } },
      },
    });
    await service.start();
  });

  afterAll(async () => {
    await service?.close(5_000);
    await catalogue?.close();
    await database?.drop();
    if (dataDir) {
      execFileSync('umount', [dataDir]);
      await fs.rmdir(dataDir);
    }
  });

  it('fails the sound with a reason, leaves no half-written files, and processes it once space is back', async () => {
    const intake = new SoundIntake(catalogue.db, service.storage);
    const user = await catalogue.db
      .insertInto('users')
      .values({
        username: 'uploader',
        password_hash: null,
        avatar_path: null,
        is_trusted: false,
        is_moderator: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const source = synth(
      path.join(os.tmpdir(), `earshot-full-disk-${process.pid}.wav`),
      'sine=frequency=440:duration=3',
    );
    const id = await intake.create({ userId: user.id, file: source, tags: ['tone'] });
    await fs.rm(source);
    const filler = await fillDisk(dataDir!);
    await service.pipeline.submit(id);

    const sound = () =>
      catalogue.db
        .selectFrom('sounds')
        .select(['processing_state', 'processing_error', 'processing_stage'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const failed = await waitFor(
      async () => ((await sound()).processing_state === 'Failed' ? sound() : undefined),
      {
        timeoutMs: 60_000,
        what: 'the sound to fail on the full disk',
      },
    );
    // Whichever stage first needs to write fails (probe, in the runs here); the reason
    // is the retriable one and the detail names the cause.
    expect(['probe', 'media']).toContain(failed.processing_stage);
    expect(failed.processing_error?.split('\n')[0]).toMatch(
      /^Processing failed while .+; it can be retried\.$/,
    );
    expect(failed.processing_error).toMatch(/ENOSPC|No space left/i);
    // No staging folder or partial output left behind to fill the disk further.
    const left = await fs.readdir(service.storage.soundDir(id)).catch(() => [] as string[]);
    expect(left.filter((e) => e.startsWith('.staging'))).toEqual([]);

    await fs.rm(filler);
    expect(await reprocessFailed(catalogue.db, service.pipeline)).toContain(id);
    const done = await waitFor(
      async () => ((await sound()).processing_state === 'Processed' ? sound() : undefined),
      {
        timeoutMs: 60_000,
        what: 'the sound to be processed once space is back',
      },
    );
    expect(done.processing_error).toBeNull();
  }, 150_000);
});
