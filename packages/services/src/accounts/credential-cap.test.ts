import { openTestCatalogue, type TestCatalogue, testBackends } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from './accounts.ts';
import {
  applyForCredential,
  CredentialLimitReached,
  createApiCredential,
  listUserCredentials,
  revokeApiCredential,
} from './credentials.ts';

const postgresUrl = await testService('postgres');

/**
 * CREDENTIALS_PER_USER: one account cannot multiply its rate limits (counted per credential) by
 * asking for credential after credential. The cap holds for requests sent at once, counts only
 * live credentials, and is the caller's to lift (the operator's CLI).
 */
describe.each(testBackends(postgresUrl))('the cap on credentials per user, on %s', (backend) => {
  let test: TestCatalogue;
  beforeAll(async () => {
    test = await openTestCatalogue(backend, { postgresUrl });
  });
  afterAll(() => test?.cleanup());

  const application = (username: string, name: string) => ({
    username,
    name,
    description: '',
    redirectUri: 'https://example.org/cb',
  });

  it('refuses the credential past the cap with a 409 that says what to do; a revoked one frees a place', async () => {
    const db = test.catalogue.db;
    const userId = await createUser(db, {
      username: 'carol',
      email: 'carol@example.org',
      password: 'x'.repeat(8),
    });
    for (let i = 0; i < 3; i++) await applyForCredential(db, application('carol', `app ${i}`), 3);
    const refused = await applyForCredential(db, application('carol', 'one more'), 3).catch((e) => e);
    expect(refused).toBeInstanceOf(CredentialLimitReached);
    expect(refused.status).toBe(409);
    expect(refused.message).toBe(
      'An account may have at most 3 API credentials: revoke one that is no longer used before asking for another.',
    );
    expect(await listUserCredentials(db, userId)).toHaveLength(3);
    await revokeApiCredential(db, userId, (await listUserCredentials(db, userId))[0].client_id);
    await applyForCredential(db, application('carol', 'after revoking'), 3);
    expect((await listUserCredentials(db, userId)).map((c) => c.name)).toEqual([
      'app 1',
      'app 2',
      'after revoking',
    ]);
  });

  it('holds for ten requests sent at once', async () => {
    const db = test.catalogue.db;
    const userId = await createUser(db, {
      username: 'dave',
      email: 'dave@example.org',
      password: 'x'.repeat(8),
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => applyForCredential(db, application('dave', `app ${i}`), 4)),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(4);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(CredentialLimitReached);
    }
    expect(await listUserCredentials(db, userId)).toHaveLength(4);
  });

  it('applies to the operator’s create only when given (the CLI passes CREDENTIALS_PER_USER unless --over-limit)', async () => {
    const db = test.catalogue.db;
    const made = (maxPerUser?: number) =>
      createApiCredential(db, { username: 'erin', name: 'ops', redirectUri: 'http://x/cb', maxPerUser });
    await made(1);
    await expect(made(1)).rejects.toBeInstanceOf(CredentialLimitReached);
    await made(undefined);
    expect((await made(undefined)).username).toBe('erin');
  });
});
