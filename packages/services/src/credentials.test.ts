import { findCredentialBySecret, findUserByName } from '@earshot/catalogue';
import { openTestCatalogue, type TestCatalogue } from '@earshot/catalogue/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from './accounts.ts';
import { createApiCredential } from './credentials.ts';
import { DEMO_USERNAME, ensureDemoAccount } from './demo-account.ts';

describe('API credentials and the demo account', () => {
  let test: TestCatalogue;
  beforeAll(async () => {
    test = await openTestCatalogue('pglite');
  });
  afterAll(() => test?.cleanup());

  it('issues a 20/40-character credential, creating its owner only when unknown', async () => {
    const db = test.catalogue.db;
    const first = await createApiCredential(db, {
      username: 'carol',
      name: 'App',
      redirectUri: 'http://x/cb',
    });
    expect(first).toMatchObject({
      username: 'carol',
      name: 'App',
      redirect_uri: 'http://x/cb',
      user_created: true,
    });
    expect(first.client_id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(first.client_secret).toMatch(/^[A-Za-z0-9]{40}$/);
    const second = await createApiCredential(db, {
      username: 'CAROL',
      name: 'Other',
      redirectUri: 'http://x/cb',
    });
    expect(second).toMatchObject({ username: 'carol', user_created: false });
    const owner = await findUserByName(db, 'carol');
    expect((await findCredentialBySecret(db, second.client_secret))?.user_id).toBe(owner?.id);
  });

  it('makes the demo account once and returns the same key afterwards', async () => {
    const db = test.catalogue.db;
    const made = await ensureDemoAccount(db, 'http://127.0.0.1:8000');
    expect(made).toMatchObject({ username: DEMO_USERNAME, created: true });
    const again = await ensureDemoAccount(db, 'http://127.0.0.1:8000');
    expect(again).toEqual({ ...made, created: false });
    expect((await findCredentialBySecret(db, made.apiKey))?.redirect_uri).toBe(
      'http://127.0.0.1:8000/home/app_permissions/permission_granted/',
    );
  });

  it('gives the demo account a key when the demo user already exists (made by the demo import)', async () => {
    const other = await openTestCatalogue('pglite');
    try {
      await createUser(other.catalogue.db, { username: DEMO_USERNAME, isTrusted: true });
      expect(await ensureDemoAccount(other.catalogue.db, 'http://h')).toMatchObject({ created: true });
      expect(await ensureDemoAccount(other.catalogue.db, 'http://h')).toMatchObject({ created: false });
    } finally {
      await other.cleanup();
    }
  });
});
