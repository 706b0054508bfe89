import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { acquireSoundLease, type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { synth } from '@earshot/core/testing';
import { SoundIntake } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { waitFor } from '../testing/wait.ts';
import { coreAnalyzer } from './core-analyzer.ts';
import { CoreMediaTools } from './core-tools.ts';
import { readAnalysisHandOff } from './hand-off.ts';
import type { MediaTools } from './tools.ts';

const postgresUrl = await testService('postgres');

/** The real tools, counting how often each stage's work ran for each sound (by the original's path). */
function countingTools(counts: Map<string, number>): MediaTools {
  const real = new CoreMediaTools(coreAnalyzer, createLogger('silent'), { corePerJob: false });
  const count = (what: string, file: string) =>
    counts.set(`${what} ${file}`, (counts.get(`${what} ${file}`) ?? 0) + 1);
  return {
    probe(file, name) {
      count('probe', file);
      return real.probe(file, name);
    },
    async renderMedia(file, out, o) {
      count('media', file);
      const rendered = await real.renderMedia(file, out, o);
      // The in-process runner's media stage analyses too (the analysis stage then only moves files).
      if (o.analysisHandOff && (await readAnalysisHandOff(o.analysisHandOff))) count('analyze', file);
      return rendered;
    },
    analyze(file, out, o) {
      count('analyze', file);
      return real.analyze(file, out, o);
    },
    similarityVectors: (a) => real.similarityVectors(a),
  };
}

/**
 * Two in-process runners on one database, as two `earshot serve` / `import` processes on one data
 * folder or one PostgreSQL server are: each its own catalogue connection and lease owner.
 */
describe.skipIf(!postgresUrl)('one owner per sound across runners on one database (leases)', () => {
  let database: { url: string; drop(): Promise<void> };
  let dataDir: string;
  const catalogues: Catalogue[] = [];
  const services: JobRunnerService[] = [];
  const counts = new Map<string, number>();
  let intake: SoundIntake;
  let uploader: number;
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl!);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-lease-'));
    for (let i = 0; i < 2; i++) {
      const catalogue = await openCatalogue({ config: { dataDir, DATABASE_URL: database.url }, logger });
      catalogues.push(catalogue);
      const service = createJobRunner({
        config: { dataDir, REDIS_URL: undefined, WORKER_CONCURRENCY: 2 },
        logger,
        catalogue,
        tools: countingTools(counts),
        reconcileIntervalMs: 300,
      });
      services.push(service);
    }
    intake = new SoundIntake(catalogues[0].db, services[0].storage);
    const user = await catalogues[0].db
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
    uploader = user.id;
  });

  afterAll(async () => {
    for (const s of services) await s.close(5_000);
    for (const c of catalogues) await c.close();
    await database?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const state = (id: number) =>
    catalogues[0].db
      .selectFrom('sounds')
      .select(['processing_state', 'processing_error', 'original_path'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const settled = (id: number, timeoutMs = 60_000) =>
    waitFor(
      async () => {
        const s = await state(id);
        return s.processing_state === 'Processed' || s.processing_state === 'Failed' ? s : undefined;
      },
      { timeoutMs, what: `sound ${id} to finish processing` },
    );

  let made = 0;
  async function newSounds(n: number, label: string): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      // Distinct audio per sound: the catalogue refuses a second copy of a file.
      const file = synth(
        path.join(dataDir, `${label}-${i}.wav`),
        `sine=frequency=${200 + 53 * made++}:duration=1`,
      );
      ids.push(await intake.create({ userId: uploader, file, tags: ['tone', label] }));
    }
    return ids;
  }

  /** How often each stage's work ran for the sound (from the counting tools). */
  async function runsOf(id: number) {
    const original = path.join(dataDir, (await state(id)).original_path);
    return ['probe', 'media', 'analyze'].map((what) => counts.get(`${what} ${original}`) ?? 0);
  }

  it('runs each stage of each sound once when both runners are handed every sound', async () => {
    for (const s of services) await s.start();
    const ids = await newSounds(6, 'both');
    // Both processes hear of every sound (as after two reconciles at start): the lease decides.
    await Promise.all(ids.flatMap((id) => services.map((s) => s.pipeline.submit(id))));
    for (const id of ids) expect((await settled(id)).processing_state).toBe('Processed');
    for (const id of ids) expect(await runsOf(id)).toEqual([1, 1, 1]);
  }, 120_000);

  it('picks up within seconds a sound another process queued without submitting it (import --no-wait)', async () => {
    const [id] = await newSounds(1, 'nowait');
    const queuedAt = Date.now();
    const done = await settled(id, 20_000);
    expect(done.processing_state).toBe('Processed');
    expect(Date.now() - queuedAt).toBeLessThan(15_000);
    expect(await runsOf(id)).toEqual([1, 1, 1]);
  }, 60_000);

  it("takes over a dead process's sound once its lease expires, not before", async () => {
    const [id] = await newSounds(1, 'orphan');
    // A process took the sound and died without a word: its lease is all that is left of it.
    const leasedAt = Date.now();
    expect(await acquireSoundLease(catalogues[1].db, id, 'dead-process:1', 3_000)).toBeDefined();
    await services[0].pipeline.submit(id);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await state(id)).processing_state).toBe('Queued');
    expect(await runsOf(id)).toEqual([0, 0, 0]);
    const done = await settled(id, 30_000);
    expect(done.processing_state).toBe('Processed');
    expect(Date.now() - leasedAt).toBeGreaterThanOrEqual(3_000);
    expect(await runsOf(id)).toEqual([1, 1, 1]);
  }, 60_000);
});
