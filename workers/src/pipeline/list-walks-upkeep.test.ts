import { readListWalk, startListWalk } from '@earshot/catalogue';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { type RunnerBackend, runnerBackends } from '../testing/runner-backends.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';

/**
 * Cursor walks past their keeping time leave the catalogue through the workers' scheduled upkeep
 * (`list_walks_upkeep`), not only when another walk starts: a consuming process's reconciler
 * queues the job, whichever runner carries it, and the job removes the expired walks with their
 * stored ids and keeps the live ones readable.
 */

const redisUrl = await testService('redis');
const postgresUrl = await testService('postgres');

const LIMITS = { idleSeconds: 3600, maxStoredIds: 1_000_000 };
const IDS = Array.from({ length: 2500 }, (_, i) => i + 1);

describe.each(runnerBackends('walks_upkeep', redisUrl, postgresUrl))(
  'the list walks upkeep job with the %s',
  (_, redis, open, available) => {
    let backend: RunnerBackend;
    let service: JobRunnerService | undefined;
    const prefix = uniquePrefix('walks');

    beforeAll(async () => {
      if (available) backend = await open();
    }, 120_000);
    afterAll(async () => {
      if (!available) return;
      await service?.close(5_000);
      if (redis) await dropQueue(redis, prefix);
      await backend.dispose();
    });

    const storedWalks = async () =>
      (
        await sql<{ walk_id: string; chunks: number }>`
          select walk_id::text, count(*)::int as chunks from list_walk_chunks group by walk_id order by walk_id`.execute(
          backend.catalogue.db,
        )
      ).rows;

    it.skipIf(!available)('removes the expired walks in the background and keeps the live one', async () => {
      const db = backend.catalogue.db;
      const expired = [
        await startListWalk(db, 'search:a', { ids: IDS }, LIMITS),
        await startListWalk(db, 'search:b', { ids: IDS }, LIMITS),
      ];
      const live = await startListWalk(db, 'search:c', { ids: IDS }, LIMITS);
      await sql`update list_walks set expires_at = now() - interval '1 second'
        where id in (${sql.join(expired.map((id) => sql`${id}::bigint`))})`.execute(db);
      // Nothing else removes them: no walk starts from here on.
      expect((await storedWalks()).map((w) => w.walk_id)).toEqual([...expired, live]);

      service = createJobRunner({
        config: { dataDir: backend.dataDir, REDIS_URL: redis, WORKER_CONCURRENCY: 1 },
        logger: backend.logger,
        catalogue: backend.catalogue,
        runWorkers: true,
        queuePrefix: prefix,
        reconcileIntervalMs: 100,
        listWalkUpkeepEveryMs: 100,
      });
      await service.start();
      await waitFor(async () => (await storedWalks()).length === 1, {
        timeoutMs: 30_000,
        what: 'the expired walks removed',
      });
      expect(await storedWalks()).toEqual([{ walk_id: live, chunks: 3 }]);
      const { rows } = await sql<{ id: string }>`select id::text from list_walks`.execute(db);
      expect(rows.map((r) => r.id)).toEqual([live]);
      expect(await readListWalk(db, live, 'search:c', { offset: 2490, limit: 15 }, LIMITS)).toEqual({
        total: IDS.length,
        ids: IDS.slice(2490),
      });
    });
  },
);
