import { testService } from '@earshot/common/testing';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { findApiKeyOwner } from '../repositories/api-keys.ts';
import { apiKeyDigest, createCredential, findCredentialBySecret } from '../repositories/credentials.ts';
import { createUser } from '../repositories/users.ts';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import { down, up } from './20261126300000-api-key-digests.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('API keys at rest on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  it('stores a new key only as its digest and finds the credential by the plain key', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const issued = await createCredential(db(), { userId: user.id, name: 'App', redirectUri: 'http://x/cb' });
    expect(issued.client_secret).toMatch(/^[A-Za-z0-9]{40}$/);
    const rows = await sql<
      Record<string, unknown>
    >`SELECT * FROM api_credentials WHERE id = ${issued.id}`.execute(db());
    expect(JSON.stringify(rows.rows)).not.toContain(issued.client_secret);
    expect(rows.rows[0].client_secret_digest).toBe(apiKeyDigest(issued.client_secret));
    expect(rows.rows[0].client_secret_hint).toBe(issued.client_secret.slice(0, 4));
    expect((await findApiKeyOwner(db(), issued.client_secret))?.client_id).toBe(issued.client_id);
    expect(await findApiKeyOwner(db(), apiKeyDigest(issued.client_secret))).toBeUndefined(); // the digest is no key
  });

  it('converts the plain keys of an existing database to digests, and they keep working', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const kysely = db() as unknown as Kysely<unknown>;
    await down(kysely);
    const plain = 'PlainKeyStoredBeforeIssue19xxxxxxxxxxxx1';
    await sql`INSERT INTO api_credentials (user_id, client_id, client_secret, name, redirect_uri)
      VALUES (${user.id}, 'OldClientId000000001', ${plain}, 'Old app', 'http://x/cb')`.execute(db());
    await up(kysely);

    const rows = await sql<
      Record<string, unknown>
    >`SELECT * FROM api_credentials WHERE client_id = 'OldClientId000000001'`.execute(db());
    expect(JSON.stringify(rows.rows)).not.toContain(plain);
    expect(rows.rows[0]).toMatchObject({
      client_secret_digest: apiKeyDigest(plain),
      client_secret_hint: 'Plai',
    });
    expect((await findApiKeyOwner(db(), plain))?.client_id).toBe('OldClientId000000001');
    expect((await findCredentialBySecret(db(), plain))?.name).toBe('Old app');
  });
});
