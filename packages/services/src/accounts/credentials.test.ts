import { findCredentialBySecret, findUserByName } from '@earshot/catalogue';
import { openTestCatalogue, type TestCatalogue } from '@earshot/catalogue/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from './accounts.ts';
import { createApiCredential, listUserCredentials, regenerateApiKey } from './credentials.ts';
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

  it('makes the demo account once, its key shown in full only then (only its digest is stored)', async () => {
    const db = test.catalogue.db;
    const made = await ensureDemoAccount(db, 'http://127.0.0.1:8000', { DEMO_IMPORT: true });
    expect(made).toMatchObject({ username: DEMO_USERNAME, created: true });
    const apiKey = made?.apiKey ?? '';
    expect(apiKey).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(made?.maskedKey).toBe(`${apiKey.slice(0, 4)}••••••••`);
    const again = await ensureDemoAccount(db, 'http://127.0.0.1:8000', { DEMO_IMPORT: true });
    expect(again).toEqual({
      username: DEMO_USERNAME,
      clientId: made?.clientId,
      maskedKey: made?.maskedKey,
      created: false,
    });
    expect((await findCredentialBySecret(db, apiKey))?.redirect_uri).toBe(
      'http://127.0.0.1:8000/home/app_permissions/permission_granted/',
    );
  });

  it('makes no demo user and no key when the demo import is off (DEMO_IMPORT=0)', async () => {
    const other = await openTestCatalogue('pglite');
    try {
      expect(await ensureDemoAccount(other.catalogue.db, 'http://h', { DEMO_IMPORT: false })).toBeUndefined();
      expect(await findUserByName(other.catalogue.db, DEMO_USERNAME)).toBeUndefined();
    } finally {
      await other.cleanup();
    }
  });

  it('regenerates a key: the new one is found, the old one no longer', async () => {
    const db = test.catalogue.db;
    const made = await createApiCredential(db, { username: 'erin', name: 'App', redirectUri: 'http://x/cb' });
    const owner = await findUserByName(db, 'erin');
    await expect(regenerateApiKey(db, owner!.id + 1000, made.client_id)).rejects.toThrow(/no credential/);
    const fresh = await regenerateApiKey(db, owner!.id, made.client_id);
    expect(fresh.client_secret).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(await findCredentialBySecret(db, made.client_secret)).toBeUndefined();
    expect((await findCredentialBySecret(db, fresh.client_secret))?.client_id).toBe(made.client_id);
    const listed = await listUserCredentials(db, owner!.id);
    expect(listed[0].masked_key).toBe(`${fresh.client_secret.slice(0, 4)}••••••••`);
  });

  it('gives the demo account a key when the demo user already exists (made by the demo import)', async () => {
    const other = await openTestCatalogue('pglite');
    try {
      await createUser(other.catalogue.db, { username: DEMO_USERNAME, isTrusted: true });
      const on = { DEMO_IMPORT: true };
      expect(await ensureDemoAccount(other.catalogue.db, 'http://h', on)).toMatchObject({ created: true });
      expect(await ensureDemoAccount(other.catalogue.db, 'http://h', on)).toMatchObject({ created: false });
    } finally {
      await other.cleanup();
    }
  });
});
