import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { soundRecordsByIds } from '../repositories/records.ts';
import { setGenAiPreference } from '../repositories/users.ts';
import {
  SEED_NOW,
  seedSearchCatalogue,
  testBackends,
  useSearchCatalogue,
  VISIBLE_IDS,
} from '../testing/index.ts';
import { searchSounds } from './execute.ts';

const postgresUrl = await testService('postgres');

/**
 * `gen_ai_preference` (issue 35): the uploader's preference on every sound of theirs, `no-gen-ai`
 * on their solo-speech sounds when they opted speech out; the same value in the sound records and
 * in the search filter. Seed: alice (user 1) uploaded 104 and 105, Carol (user 3) 106 and 107.
 */
describe.each(testBackends(postgresUrl))('gen_ai_preference on %s', (backend) => {
  const t = useSearchCatalogue(backend, postgresUrl, seedSearchCatalogue);
  const filtered = async (filter: string) =>
    (await searchSounds(t.catalogue, { now: SEED_NOW, limit: 150, filter })).ids.sort((a, b) => a - b);
  const preferences = async (ids: number[]) =>
    Object.fromEntries(
      (await soundRecordsByIds(t.catalogue.db, ids, 'freesound_classic')).map((r) => [
        r.id,
        r.gen_ai_preference,
      ]),
    );

  it('is no-additional-preferences until the uploader says otherwise', async () => {
    expect(await filtered('gen_ai_preference:"no-additional-preferences"')).toEqual(VISIBLE_IDS);
    expect(Object.values(await preferences(VISIBLE_IDS))).toEqual(
      VISIBLE_IDS.map(() => 'no-additional-preferences'),
    );
  });

  it("follows the uploader's setting, and the speech opt-out makes solo speech no-gen-ai", async () => {
    const db = t.catalogue.db;
    await setGenAiPreference(db, 1, 'noncommercial-open-source-models', false);
    await sql`update sounds set category_code = 'sp-s' where id in (104, 106)`.execute(db);
    // alice did not opt speech out: her solo-speech sound keeps her preference.
    await setGenAiPreference(db, 3, 'open-source-models', true);
    expect(await preferences([104, 105, 106, 107])).toEqual({
      104: 'noncommercial-open-source-models',
      105: 'noncommercial-open-source-models',
      106: 'no-gen-ai',
      107: 'open-source-models',
    });
    expect(await filtered('gen_ai_preference:"noncommercial-open-source-models"')).toEqual([104, 105]);
    expect(await filtered('gen_ai_preference:no-gen-ai')).toEqual([106]);
    expect(await filtered('gen_ai_preference:"open-source-models" OR gen_ai_preference:"no-gen-ai"')).toEqual(
      [106, 107],
    );
    expect(await filtered('-gen_ai_preference:"no-additional-preferences"')).toEqual([104, 105, 106, 107]);
    // A value outside the four is an error naming them, never a filter that matches nothing.
    await expect(filtered('gen_ai_preference:"something else"')).rejects.toThrow(
      /"something else" is not a value of gen_ai_preference; use one of no-additional-preferences, open-source-models/,
    );
    await expect(filtered('gen_ai_preference:[a TO z]')).rejects.toThrow(/not a range/);
    await setGenAiPreference(db, 3, 'open-source-models', false);
    expect(await filtered('gen_ai_preference:no-gen-ai')).toEqual([]);
  });

  it('the catalogue refuses a value that is not one of the four', async () => {
    const error = await sql`update users set gen_ai_preference = 'maybe' where id = 1`
      .execute(t.catalogue.db)
      .catch((e) => e);
    expect(String(error)).toMatch(/check constraint/);
  });
});
