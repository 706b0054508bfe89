import { getSound } from '@earshot/catalogue';
import { createUser } from '@earshot/services';
import { recordingQueue } from '@earshot/services/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENTION_DETAIL } from '../src/framework/middleware/errors.ts';
import { bearerGrant, startTestServer, type TestServer, WEB_PASSWORD, WebClient } from './support/index.ts';

/**
 * A write that PostgreSQL ends as a deadlock's victim is no fault of the request: the catalogue
 * runs an edit or an approval again, and what still fails is a 503 with Retry-After, never a 500
 * (the write fuzz suite met the 500 on a loaded machine). Here the database itself fails every
 * change of two sounds with SQLSTATE 40P01, as it fails a victim, so every attempt meets it.
 */
describe('writes that keep meeting a deadlock', () => {
  let s: TestServer;
  let alice: string;
  let edited: number;
  let pending: number;

  beforeAll(async () => {
    s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false' }, { queue: recordingQueue().queue });
    const db = s.catalogue.db;
    alice = (await bearerGrant(db, s.origin, 'alice')).accessToken;
    await createUser(db, {
      username: 'mona',
      email: 'mona@example.org',
      password: WEB_PASSWORD,
      isModerator: true,
    });
    edited = s.seeded.ids.bd_klub; // alice's
    pending = s.seeded.ids.hat_sci; // bob's, waiting for a moderator
    await sql`create function test_deadlock_victim() returns trigger language plpgsql as $$
      begin raise exception 'deadlock detected' using errcode = 'deadlock_detected'; end $$`.execute(db);
    await sql`create trigger test_deadlock_victim before update on sounds for each row
      when (old.id in (${sql.lit(edited)}, ${sql.lit(pending)})) execute function test_deadlock_victim()`.execute(
      db,
    );
  }, 120_000);
  afterAll(() => s?.stop());

  async function post(path: string, params: Record<string, string>) {
    const res = await fetch(`${s.origin}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice}` },
      body: new URLSearchParams(params),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  }

  it('an edit run again as often as the catalogue would is a 503 with Retry-After, and changes nothing', async () => {
    const before = await getSound(s.catalogue.db, edited);
    expect(await post(`/apiv2/sounds/${edited}/edit/`, { name: 'Never saved' })).toEqual({
      status: 503,
      retryAfter: '1',
      body: { detail: CONTENTION_DETAIL },
    });
    expect((await getSound(s.catalogue.db, edited))?.name).toBe(before?.name);
  });

  it('a write the catalogue does not run again (a rating) is a 503 with Retry-After too', async () => {
    expect(await post(`/apiv2/sounds/${edited}/rate/`, { rating: '4' })).toEqual({
      status: 503,
      retryAfter: '1',
      body: { detail: CONTENTION_DETAIL },
    });
  });

  it('the moderation page answers an approval it could not save with a 503 page and Retry-After', async () => {
    const mona = new WebClient(s.origin);
    expect((await mona.signIn('mona')).status).toBe(303);
    await mona.get('/apiv2/moderation/');
    const res = await mona.post('/apiv2/moderation/', { sound_id: String(pending), decision: 'approve' });
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.body).toContain('Other changes were being made at the same moment');
    expect((await getSound(s.catalogue.db, pending))?.moderation_state).toBe('pending_moderation');
  });
});
