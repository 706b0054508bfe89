import { createHash } from 'node:crypto';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import { createUser } from './users.ts';
import {
  createWebSession,
  deleteExpiredWebSessions,
  deleteUserWebSessions,
  deleteWebSession,
  findWebSession,
  touchWebSession,
} from './web-sessions.ts';

const postgresUrl = await testService('postgres');
const MINUTE = 60_000;
const lifetime = { idleMs: 10 * MINUTE, absoluteMs: 30 * MINUTE };

describe.each(testBackends(postgresUrl))('web sessions on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);
  const t0 = new Date('2026-01-01T00:00:00Z');
  const at = (minutes: number) => new Date(t0.getTime() + minutes * MINUTE);

  it('stores the SHA-256 of the id, never the id, and finds the session by its id', async () => {
    const user = await createUser(db(), { username: unique('sess') });
    const session = await createWebSession(db(), { userId: user.id, lifetime, now: t0 });
    expect(session.id).toMatch(/^[\w-]{43}$/);
    expect(session.csrfToken).not.toBe(session.id);
    const rows = await sql<{ id_digest: Buffer }>`select id_digest from web_sessions`.execute(db());
    const stored = rows.rows.map((r) => Buffer.from(r.id_digest).toString('hex'));
    expect(stored).toContain(createHash('sha256').update(session.id).digest('hex'));
    expect(JSON.stringify(rows.rows)).not.toContain(session.id);
    expect(await findWebSession(db(), session.id, at(1))).toMatchObject({ userId: user.id });
    expect(await findWebSession(db(), `${session.id}x`, at(1))).toBeUndefined();
  });

  it('ends after the idle time without use, and at the absolute time however used', async () => {
    let session = await createWebSession(db(), { userId: null, lifetime, now: t0 });
    expect(await findWebSession(db(), session.id, at(9))).toBeDefined();
    expect(await findWebSession(db(), session.id, at(10))).toBeUndefined();
    session = await createWebSession(db(), { userId: null, lifetime, now: t0 });
    for (const minute of [8, 16, 24]) {
      session = await touchWebSession(db(), session, lifetime, at(minute));
      expect(await findWebSession(db(), session.id, at(minute + 1))).toBeDefined();
    }
    expect(session.expiresAt).toEqual(at(30)); // not 24 + 10
    expect(await findWebSession(db(), session.id, at(30))).toBeUndefined();
  });

  it('deletes one session, a user’s sessions, and the expired ones', async () => {
    const user = await createUser(db(), { username: unique('sess') });
    const a = await createWebSession(db(), { userId: user.id, lifetime, now: t0 });
    const b = await createWebSession(db(), { userId: user.id, lifetime, now: t0 });
    await deleteWebSession(db(), a.id);
    expect(await findWebSession(db(), a.id, t0)).toBeUndefined();
    expect(await deleteUserWebSessions(db(), user.id)).toBe(1);
    expect(await findWebSession(db(), b.id, t0)).toBeUndefined();
    const old = await createWebSession(db(), { userId: null, lifetime, now: at(-100) });
    const fresh = await createWebSession(db(), { userId: null, lifetime, now: t0 });
    expect(await deleteExpiredWebSessions(db(), t0)).toBeGreaterThanOrEqual(1);
    expect(await findWebSession(db(), old.id, at(-95))).toBeUndefined();
    expect(await findWebSession(db(), fresh.id, t0)).toBeDefined();
  });
});
