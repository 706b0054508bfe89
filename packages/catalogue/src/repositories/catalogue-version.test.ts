import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  setModerationState,
  setProcessingState,
  testBackends,
  useRepositoryCatalogue,
} from '../testing/index.ts';
import { readCatalogueVersion } from './catalogue-version.ts';
import { createSound } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('the catalogue change counter on %s', (backend) => {
  const t = useRepositoryCatalogue(backend, postgresUrl);
  const embedded = backend === 'pglite';

  async function newSound(): Promise<number> {
    const user = await createUser(t.db(), { username: t.unique('counter') });
    const sound = await createSound(t.db(), {
      userId: user.id,
      name: 'rain on a tin roof',
      description: 'steady rain',
      tags: ['rain', 'roof'],
      license: 'Creative Commons 0',
      originalFilename: 'rain.wav',
      originalPath: 'originals/rain.wav',
    });
    return sound.id;
  }

  it.runIf(embedded)('moves once per committed transaction that changes what readers see', async () => {
    const id = await newSound();
    const before = await readCatalogueVersion(t.db());
    await setModerationState(t.db(), id, 'ok', null);
    const once = await readCatalogueVersion(t.db());
    expect(once).toBe(before + 1);

    // Many statements over several tables in one transaction: one step.
    await t
      .db()
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('sounds').set({ name: 'heavy rain' }).where('id', '=', id).execute();
        await trx.updateTable('sounds').set({ description: 'heavier now' }).where('id', '=', id).execute();
        await trx
          .insertInto('tags')
          .values({ name: t.unique('downpour') })
          .execute();
      });
    expect(await readCatalogueVersion(t.db())).toBe(once + 1);

    // A rebuild writes and then builds indexes in one transaction: the counting must not stand in its way.
    await sql`select search_rebuild()`.execute(t.db());
    expect(await readCatalogueVersion(t.db())).toBe(once + 2);
  });

  it.runIf(embedded)('stays put for a rolled-back transaction and for progress bookkeeping', async () => {
    const id = await newSound();
    const before = await readCatalogueVersion(t.db());
    await t
      .db()
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('sounds').set({ name: 'never' }).where('id', '=', id).execute();
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await readCatalogueVersion(t.db())).toBe(before);
    await setProcessingState(t.db(), id, { state: 'Processing', stage: 'probe', progress: 0 });
    const processing = await readCatalogueVersion(t.db());
    expect(processing).toBe(before + 1); // the state itself changed
    await setProcessingState(t.db(), id, { state: 'Processing', stage: 'analysis', progress: 0.5 });
    expect(await readCatalogueVersion(t.db())).toBe(processing);
  });

  it.runIf(!embedded)('stays put on the server, whose readers listen for notifications instead', async () => {
    // Moving it there would make concurrent writers queue on its row from their first write on.
    const id = await newSound();
    const before = await readCatalogueVersion(t.db());
    await setModerationState(t.db(), id, 'ok', null);
    expect(await readCatalogueVersion(t.db())).toBe(before);
  });
});
