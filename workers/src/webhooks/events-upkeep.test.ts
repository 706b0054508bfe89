import { addComment, latestUserEventPosition, readUserEvents } from '@earshot/catalogue';
import {
  freshDataDir,
  insertSeedSound,
  insertSeedUser,
  openTestCatalogue,
  type TestCatalogue,
  testBackends,
} from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { waitFor } from '../testing/wait.ts';

const postgresUrl = await testService('postgres');

/**
 * The events' retention runs in the workers' scheduled upkeep: a consuming process queues the
 * `events_upkeep` job, which removes the events past EVENTS_RETENTION_DAYS that no webhook owes
 * and keeps the newer ones (packages/services/src/webhooks/upkeep.test.ts tests the rule itself).
 */
describe.each(testBackends(postgresUrl))('the events upkeep job on %s', (backend) => {
  let t: TestCatalogue;
  let service: JobRunnerService;

  beforeAll(async () => {
    t = await openTestCatalogue(backend, { postgresUrl });
  }, 120_000);
  afterAll(async () => {
    await service?.close(2_000);
    await t?.cleanup();
  });

  it('removes the old events in the background and keeps the recent ones', async () => {
    const db = t.catalogue.db;
    const owner = await insertSeedUser(db, { username: 'owner', password_hash: null, avatar_path: null });
    const fan = await insertSeedUser(db, { username: 'fan', password_hash: null, avatar_path: null });
    const sound = await insertSeedSound(db, {
      user_id: owner,
      name: 'Gong',
      license: 'Creative Commons 0',
      original_filename: 'gong.wav',
      original_path: 'x/gong.wav',
      type: 'wav',
      processing_state: 'Processed',
      moderation_state: 'ok',
    });
    const start = await latestUserEventPosition(db);
    await addComment(db, { soundId: sound, userId: fan, comment: 'old' });
    await addComment(db, { soundId: sound, userId: fan, comment: 'recent' });
    const [old, recent] = await readUserEvents(db, { after: start, limit: 10 });
    await sql`update user_events set created = now() - interval '8 days' where id = ${old.id}`.execute(db);

    service = createJobRunner({
      config: {
        dataDir: await freshDataDir(),
        REDIS_URL: undefined,
        WORKER_CONCURRENCY: 1,
        EVENTS_RETENTION_DAYS: 7,
      },
      logger: createLogger('silent'),
      catalogue: t.catalogue,
      eventUpkeepEveryMs: 100,
      reconcileIntervalMs: 100,
    });
    await service.start();
    await waitFor(async () => (await readUserEvents(db, { after: start, limit: 10 })).length === 1, {
      timeoutMs: 20_000,
      what: 'the old event removed',
    });
    expect((await readUserEvents(db, { after: start, limit: 10 })).map((e) => e.id)).toEqual([recent.id]);
  });
});
