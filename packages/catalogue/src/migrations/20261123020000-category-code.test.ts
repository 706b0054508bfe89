import { testService } from '@earshot/common/testing';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createSound, getSound } from '../repositories/sounds.ts';
import { createUser } from '../repositories/users.ts';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import { up } from './20261123020000-category-code.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('the category_code backfill on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  it('fills in the code and the user-provided flag of sounds created before the fix', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const sound = async (category: string | null, subcategory: string | null) => {
      const created = await createSound(db(), {
        userId: user.id,
        name: unique('sound '),
        tags: ['rain'],
        license: 'Creative Commons 0',
        originalFilename: 'rain.wav',
        originalPath: `${unique('originals/')}.wav`,
        category,
        subcategory,
      });
      // As the sound was stored before: no code, not marked as the uploader's.
      await db()
        .updateTable('sounds')
        .set({ category_code: null, category_is_user_provided: false })
        .where('id', '=', created.id)
        .execute();
      return created.id;
    };
    const animals = await sound('Sound effects', 'Animals');
    const other = await sound('Speech', 'Other');
    const music = await sound('Music', null);
    const unknown = await sound('Noise', 'Hiss');
    const none = await sound(null, null);

    await up(db() as unknown as Kysely<unknown>);

    const after = async (id: number) => {
      const s = await getSound(db(), id);
      return [s?.category_code, s?.category_is_user_provided];
    };
    expect(await after(animals)).toEqual(['fx-a', true]);
    expect(await after(other)).toEqual(['sp-other', true]);
    expect(await after(music)).toEqual(['m', true]);
    expect(await after(unknown)).toEqual([null, true]);
    expect(await after(none)).toEqual([null, false]);
  });
});
