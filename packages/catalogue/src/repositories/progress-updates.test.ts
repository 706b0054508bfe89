import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openTestCatalogue,
  setModerationState,
  setProcessingState,
  type TestCatalogue,
  testBackends,
} from '../testing/index.ts';
import { createSound } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('progress-only sound updates on %s', (backend) => {
  let t: TestCatalogue;
  let soundId: number;
  beforeAll(async () => {
    t = await openTestCatalogue(backend, { postgresUrl });
    const user = await createUser(t.catalogue.db, { username: 'progress' });
    const sound = await createSound(t.catalogue.db, {
      userId: user.id,
      name: 'kettle whistle',
      description: 'a kettle coming to the boil',
      tags: ['kettle', 'kitchen', 'steam'],
      license: 'Creative Commons 0',
      originalFilename: 'kettle.wav',
      originalPath: 'originals/kettle.wav',
    });
    soundId = sound.id;
    await setProcessingState(t.catalogue.db, soundId, { state: 'Processed', stage: null, progress: 1 });
    await setModerationState(t.catalogue.db, soundId, 'ok', null);
  });
  afterAll(() => t?.cleanup());

  /** The search document's row version: it changes whenever the document is rewritten. */
  async function documentVersion(): Promise<string> {
    const { rows } = await sql<{
      v: string;
      name: string;
    }>`select xmin::text as v, name from sound_search where id = ${soundId}`.execute(t.catalogue.db);
    expect(rows).toHaveLength(1);
    return `${rows[0].v}:${rows[0].name}`;
  }

  it('leaves the search document alone when only the stage and progress change, and rewrites it on a real change', async () => {
    const before = await documentVersion();
    await setProcessingState(t.catalogue.db, soundId, {
      state: 'Processed',
      stage: 'similarity',
      progress: 0.5,
    });
    expect(await documentVersion()).toBe(before);

    await t.catalogue.db
      .updateTable('sounds')
      .set({ name: 'kettle boiling' })
      .where('id', '=', soundId)
      .execute();
    const after = await documentVersion();
    expect(after).not.toBe(before);
    expect(after.endsWith(':kettle boiling')).toBe(true);

    // A state change is not bookkeeping: the sound leaves search while it is reprocessed.
    await setProcessingState(t.catalogue.db, soundId, { state: 'Processing', stage: 'probe', progress: 0 });
    const { rows } = await sql`select 1 from sound_search where id = ${soundId}`.execute(t.catalogue.db);
    expect(rows).toHaveLength(0);
    await setProcessingState(t.catalogue.db, soundId, { state: 'Processed', stage: null, progress: 1 });
  });

  it.skipIf(backend !== 'postgres')('notifies API caches of real changes only', async () => {
    const listener = new pg.Client({ connectionString: t.location });
    await listener.connect();
    const received: string[] = [];
    listener.on('notification', (n) => received.push(n.channel));
    try {
      await listener.query('LISTEN earshot_catalogue_changed');
      await setProcessingState(t.catalogue.db, soundId, {
        state: 'Processed',
        stage: 'analysis',
        progress: 0.7,
      });
      // Notifications of earlier commits arrive before the reply to a later query on the same connection.
      await listener.query('select 1');
      expect(received).toEqual([]);
      await t.catalogue.db
        .updateTable('sounds')
        .set({ description: 'steam' })
        .where('id', '=', soundId)
        .execute();
      await listener.query('select 1');
      expect(received).toEqual(['earshot_catalogue_changed']);
    } finally {
      await listener.end();
    }
  });
});
