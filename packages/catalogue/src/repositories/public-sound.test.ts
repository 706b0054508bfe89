import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  setModerationState,
  setProcessingState,
  testBackends,
  useRepositoryCatalogue,
} from '../testing/index.ts';
import { setSimilarityVector } from './analysis.ts';
import { consolidatedDescriptorsOf, publicVectorBatch } from './analysis-reads.ts';
import { findApiKeyOwner } from './api-keys.ts';
import { createCredential } from './credentials.ts';
import { publicSoundIdsByUser, soundRecordsByIds, userRecordByName } from './records.ts';
import { createSound, isPublic, publicSoundSql, wherePublic } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))(
  'the one "visible sound" rule and the read API records on %s',
  (backend) => {
    const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

    /** One sound in each corner of the rule: only `ok` + `Processed` is visible. */
    async function fourSounds() {
      const user = await createUser(db(), { username: unique('Corner') });
      const states = [
        ['ok', 'Processed'],
        ['ok', 'Queued'],
        ['pending_moderation', 'Processed'],
        ['rejected', 'Failed'],
      ] as const;
      const ids: number[] = [];
      for (const [moderation, processing] of states) {
        const sound = await createSound(db(), {
          userId: user.id,
          name: unique('corner '),
          tags: ['corner'],
          license: 'Creative Commons 0',
          originalFilename: 'c.wav',
          originalPath: `${unique('originals/')}.wav`,
        });
        await setProcessingState(db(), sound.id, { state: processing });
        await setModerationState(db(), sound.id, moderation, null);
        ids.push(sound.id);
      }
      return { user, ids };
    }

    it('isPublic, wherePublic and publicSoundSql select the same sounds', async () => {
      const { user, ids } = await fourSounds();
      const byExpression = await db()
        .selectFrom('sounds')
        .select('id')
        .where('user_id', '=', user.id)
        .where(isPublic)
        .execute();
      const byAlias = await db()
        .selectFrom('sounds as s')
        .$call(wherePublic('s'))
        .select('s.id')
        .where('s.user_id', '=', user.id)
        .execute();
      const byRawSql = await db()
        .selectFrom('sounds as s')
        .select('s.id')
        .where('s.user_id', '=', user.id)
        .where(publicSoundSql('s'))
        .execute();
      for (const rows of [byExpression, byAlias, byRawSql]) expect(rows.map((r) => r.id)).toEqual([ids[0]]);
    });

    it('the records read only visible sounds and count only them', async () => {
      const { user, ids } = await fourSounds();
      const records = await soundRecordsByIds(db(), [...ids].reverse(), 'space-a');
      expect(records.map((r) => r.id)).toEqual([ids[0]]);
      expect(records[0]).toMatchObject({ username: user.username, similarity_ready: false, analyzed: false });
      expect(await publicSoundIdsByUser(db(), user.id, { limit: 10, offset: 0 })).toEqual({
        count: 1,
        items: [ids[0]],
      });
      expect(await userRecordByName(db(), user.username.toUpperCase())).toMatchObject({
        id: user.id,
        num_sounds: 1,
      });
      for (const id of ids) await setSimilarityVector(db(), id, 'space-a', [1, 2]);
      expect((await soundRecordsByIds(db(), [ids[0]], 'space-a'))[0].similarity_ready).toBe(true);
      const batch = await publicVectorBatch(db(), 'space-a', { afterId: ids[0] - 1, limit: 10 });
      expect(batch.map((r) => r.id)).toEqual([ids[0]]);
      expect((await consolidatedDescriptorsOf(db(), ids)).size).toBe(0);
    });

    it('finds the owner of an API key with its status', async () => {
      const user = await createUser(db(), { username: unique('keyowner') });
      const credential = await createCredential(db(), {
        userId: user.id,
        name: 'app',
        redirectUri: 'http://localhost/cb',
        status: 'revoked',
      });
      expect(await findApiKeyOwner(db(), credential.client_secret)).toEqual({
        client_id: credential.client_id,
        user_id: user.id,
        username: user.username,
        status: 'revoked',
        rate_limit_level: 1,
      });
      expect(await findApiKeyOwner(db(), 'no such key')).toBeUndefined();
      // The raw fragment is a condition over the alias, nothing else: it composes with `and`.
      const n = await sql<{
        n: number;
      }>`select count(*)::int as n from sounds s where ${publicSoundSql('s')} and false`.execute(db());
      expect(n.rows[0].n).toBe(0);
    });
  },
);
