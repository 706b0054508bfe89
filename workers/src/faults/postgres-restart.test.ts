import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { synth } from '@earshot/core/testing';
import { SoundIntake } from '@earshot/services';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { PrivatePostgres } from '../testing/private-postgres.ts';
import { waitFor } from '../testing/wait.ts';

/**
 * Server mode with the PostgreSQL server itself killed (SIGKILL) and started again mid-import: a
 * private server of the test's own, never the shared one other tests use.
 */
describe.skipIf(!PrivatePostgres.available())('the PostgreSQL server killed and restarted mid-import', () => {
  let server: PrivatePostgres;
  let catalogue: Catalogue;
  let service: JobRunnerService;
  let dataDir: string;
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

  beforeAll(async () => {
    server = await PrivatePostgres.start();
    const admin = new pg.Client({ connectionString: server.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE earshot');
    await admin.end();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-pg-restart-'));
    catalogue = await openCatalogue({ config: { dataDir, DATABASE_URL: server.url('earshot') }, logger });
    service = createJobRunner({
      config: { dataDir, REDIS_URL: undefined, WORKER_CONCURRENCY: 2 },
      logger,
      catalogue,
      reconcileIntervalMs: 500,
      lease: { ttlMs: 3_000 },
    });
    await service.start();
  }, 60_000);

  afterAll(async () => {
    await service?.close(5_000);
    await catalogue?.close().catch(() => {});
    await server?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('loses no sound: each ends Processed, or Failed with a reason', async () => {
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
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const file = synth(path.join(dataDir, `tone-${i}.wav`), `sine=frequency=${300 + 71 * i}:duration=3`);
      ids.push(await intake.create({ userId: user.id, file, tags: ['tone'] }));
      await service.pipeline.submit(ids[i]);
    }
    const states = () =>
      catalogue.db
        .selectFrom('sounds')
        .select(['id', 'processing_state', 'processing_error'])
        .where('id', 'in', ids)
        .execute();
    // Kill the server while some sounds are under way and others wait.
    await waitFor(async () => (await states()).some((s) => s.processing_state === 'Processing'), {
      what: 'a sound to be processing',
    });
    await server.down();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await server.up();

    const settled = await waitFor(
      async () => {
        const rows = await states().catch(() => []);
        return rows.length === ids.length &&
          rows.every((s) => s.processing_state === 'Processed' || s.processing_state === 'Failed')
          ? rows
          : undefined;
      },
      { timeoutMs: 150_000, intervalMs: 250, what: 'every sound to settle after the restart' },
    );
    for (const s of settled) {
      if (s.processing_state === 'Failed') expect(s.processing_error ?? '').not.toBe('');
    }
    // A restart is a retry, not a loss: every sound of this import comes out processed.
    expect(
      settled
        .filter((s) => s.processing_state === 'Processed')
        .map((s) => s.id)
        .sort(),
    ).toEqual([...ids].sort());
  }, 240_000);
});
