import { testService } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import {
  CLIENT_ID_LENGTH,
  CLIENT_SECRET_LENGTH,
  createCredential,
  findCredentialByClientId,
  findCredentialBySecret,
  listCredentials,
  setCredentialStatus,
} from './credentials.ts';
import {
  ACCESS_TOKEN_TTL_MS,
  AUTHORIZATION_CODE_TTL_MS,
  checkAccessToken,
  consumeGrant,
  createGrant,
  hasLiveToken,
  issueTokens,
  revokeAccess,
  rotateRefreshToken,
} from './oauth.ts';
import {
  authenticateUser,
  createUser,
  findUserByEmail,
  findUserByName,
  setUserRoles,
  UserExistsError,
  userCounts,
} from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('people repositories on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  describe('users', () => {
    it('creates a user whose password verifies by username or email, and never returns the hash', async () => {
      const user = await createUser(db(), {
        username: 'Alice',
        email: 'Alice@Example.org',
        password: 's3cret pass',
      });
      expect(user).not.toHaveProperty('password_hash');
      expect(user.date_joined).toBeInstanceOf(Date);
      expect((await authenticateUser(db(), 'alice', 's3cret pass'))?.id).toBe(user.id);
      expect((await authenticateUser(db(), 'alice@example.ORG', 's3cret pass'))?.id).toBe(user.id);
      expect(await authenticateUser(db(), 'Alice', 'wrong')).toBeUndefined();
      expect(await authenticateUser(db(), 'nobody', 's3cret pass')).toBeUndefined();
      const stored = await db()
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(stored.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(stored.password_hash).not.toContain('s3cret');
    });

    it('finds users case-insensitively and refuses a second user with the same name or email', async () => {
      const name = unique('Bob');
      const user = await createUser(db(), { username: name, email: `${name}@example.org` });
      expect((await findUserByName(db(), name.toUpperCase()))?.id).toBe(user.id);
      expect((await findUserByEmail(db(), `${name.toUpperCase()}@EXAMPLE.org`))?.id).toBe(user.id);
      await expect(createUser(db(), { username: name.toLowerCase() })).rejects.toBeInstanceOf(
        UserExistsError,
      );
      await expect(createUser(db(), { username: unique('x'), email: `${name}@example.org` })).rejects.toThrow(
        /email/,
      );
      // A user without a password can never log in with one.
      expect(await authenticateUser(db(), name, '')).toBeUndefined();
    });

    it('records the moderator and trusted-uploader roles', async () => {
      const user = await createUser(db(), { username: unique('mod') });
      expect([user.is_moderator, user.is_trusted]).toEqual([false, false]);
      await setUserRoles(db(), user.id, { isModerator: true, isTrusted: true });
      const found = await findUserByName(db(), user.username);
      expect([found?.is_moderator, found?.is_trusted]).toEqual([true, true]);
      expect(await userCounts(db(), user.id)).toEqual({ num_sounds: 0, num_packs: 0, num_comments: 0 });
    });
  });

  describe('credentials', () => {
    it('issues a 20-character client id and a 40-character secret that finds the credential', async () => {
      const user = await createUser(db(), { username: unique('dev') });
      const cred = await createCredential(db(), {
        userId: user.id,
        name: 'my app',
        redirectUri: 'https://app.example/cb',
      });
      expect(cred.client_id).toMatch(new RegExp(`^[A-Za-z0-9]{${CLIENT_ID_LENGTH}}$`));
      expect(cred.client_secret).toMatch(new RegExp(`^[A-Za-z0-9]{${CLIENT_SECRET_LENGTH}}$`));
      expect([cred.status, cred.rate_limit_level]).toEqual(['approved', 1]);
      expect((await findCredentialBySecret(db(), cred.client_secret))?.id).toBe(cred.id);
      expect((await findCredentialByClientId(db(), cred.client_id))?.id).toBe(cred.id);
      expect(await findCredentialBySecret(db(), cred.client_id)).toBeUndefined();

      const second = await createCredential(db(), {
        userId: user.id,
        name: 'other',
        redirectUri: 'https://x/cb',
      });
      expect(second.client_secret).not.toBe(cred.client_secret);
      expect((await listCredentials(db(), { userId: user.id })).map((c) => c.name)).toEqual([
        'my app',
        'other',
      ]);
      await setCredentialStatus(db(), cred.id, 'revoked');
      expect((await findCredentialBySecret(db(), cred.client_secret))?.status).toBe('revoked');
    });

    it('refuses an unknown status or rate-limit level at the database', async () => {
      const user = await createUser(db(), { username: unique('dev') });
      const cred = await createCredential(db(), { userId: user.id, name: 'a', redirectUri: 'https://x/cb' });
      await expect(setCredentialStatus(db(), cred.id, 'deleted' as never)).rejects.toThrow(/check/i);
    });
  });

  describe('oauth', () => {
    async function app() {
      const user = await createUser(db(), { username: unique('owner') });
      const enduser = await createUser(db(), { username: unique('enduser') });
      const cred = await createCredential(db(), {
        userId: user.id,
        name: 'oauth app',
        redirectUri: 'https://app/cb',
      });
      return { cred, enduser };
    }

    it('lets an authorization code work once, only for its client and only for 10 minutes', async () => {
      const { cred, enduser } = await app();
      const other = await app();
      const issued = new Date('2026-01-01T12:00:00Z');
      const grant = await createGrant(db(), {
        credentialId: cred.id,
        userId: enduser.id,
        redirectUri: 'https://app/cb',
        scope: 'read write',
        now: issued,
      });
      expect(grant.expires_at.getTime() - issued.getTime()).toBe(AUTHORIZATION_CODE_TTL_MS);
      expect(await consumeGrant(db(), grant.code, other.cred.id, issued)).toBeUndefined();
      const late = new Date(issued.getTime() + AUTHORIZATION_CODE_TTL_MS + 1);
      expect(await consumeGrant(db(), grant.code, cred.id, late)).toBeUndefined();
      const inTime = new Date(issued.getTime() + 60_000);
      expect((await consumeGrant(db(), grant.code, cred.id, inTime))?.user_id).toBe(enduser.id);
      expect(await consumeGrant(db(), grant.code, cred.id, inTime)).toBeUndefined();
    });

    it('lets only one of two simultaneous exchanges of a code succeed', async () => {
      const { cred, enduser } = await app();
      const grant = await createGrant(db(), {
        credentialId: cred.id,
        userId: enduser.id,
        redirectUri: 'https://app/cb',
        scope: 'read',
      });
      const results = await Promise.all([1, 2, 3].map(() => consumeGrant(db(), grant.code, cred.id)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('keeps PKCE fields with the grant', async () => {
      const { cred, enduser } = await app();
      const grant = await createGrant(db(), {
        credentialId: cred.id,
        userId: enduser.id,
        redirectUri: 'https://app/cb',
        scope: 'read',
        codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        codeChallengeMethod: 'S256',
      });
      expect([grant.code_challenge, grant.code_challenge_method]).toEqual([
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        'S256',
      ]);
    });

    it('keeps one token per application and user, valid 24 hours, then expired', async () => {
      const { cred, enduser } = await app();
      const now = new Date('2026-02-01T00:00:00Z');
      const first = await issueTokens(db(), {
        credentialId: cred.id,
        userId: enduser.id,
        scope: 'read write',
        now,
      });
      expect(first.expires_at.getTime() - now.getTime()).toBe(ACCESS_TOKEN_TTL_MS);
      const second = await issueTokens(db(), {
        credentialId: cred.id,
        userId: enduser.id,
        scope: 'read write',
        now,
      });
      expect(second.access_token).not.toBe(first.access_token);
      expect((await checkAccessToken(db(), first.access_token, now)).status).toBe('unknown');
      expect((await checkAccessToken(db(), second.access_token, now)).status).toBe('valid');
      expect(await hasLiveToken(db(), cred.id, enduser.id, now)).toBe(true);
      const later = new Date(now.getTime() + ACCESS_TOKEN_TTL_MS);
      expect((await checkAccessToken(db(), second.access_token, later)).status).toBe('expired');
      expect(await hasLiveToken(db(), cred.id, enduser.id, later)).toBe(false);
    });

    it('rotates both tokens on refresh, even when expired; a replayed refresh token revokes the pair', async () => {
      const { cred, enduser } = await app();
      const old = await issueTokens(db(), {
        credentialId: cred.id,
        userId: enduser.id,
        scope: 'read',
        now: new Date('2026-01-01T00:00:00Z'),
      });
      const rotate = (refreshToken: string) =>
        rotateRefreshToken(db(), { refreshToken, credentialId: cred.id, scope: 'read' });
      const refreshed = await rotate(old.refresh_token);
      if (refreshed.status !== 'rotated') throw new Error(refreshed.status);
      expect(refreshed.token.access_token).not.toBe(old.access_token);
      expect(refreshed.token.refresh_token).not.toBe(old.refresh_token);
      expect((await checkAccessToken(db(), refreshed.token.access_token)).status).toBe('valid');
      // The old refresh token again is a replay: refused, and the pair it was rotated into revoked.
      expect(await rotate(old.refresh_token)).toEqual({ status: 'reused' });
      expect((await checkAccessToken(db(), refreshed.token.access_token)).status).toBe('revoked');
      expect(await rotate(refreshed.token.refresh_token)).toEqual({ status: 'unknown' });
    });

    it('makes revoked tokens invalid, refresh tokens included', async () => {
      const { cred, enduser } = await app();
      const tokens = await issueTokens(db(), { credentialId: cred.id, userId: enduser.id, scope: 'read' });
      await revokeAccess(db(), cred.id, enduser.id);
      expect((await checkAccessToken(db(), tokens.access_token)).status).toBe('revoked');
      expect(
        await rotateRefreshToken(db(), {
          refreshToken: tokens.refresh_token,
          credentialId: cred.id,
          scope: 'read',
        }),
      ).toEqual({ status: 'unknown' });
      expect((await checkAccessToken(db(), 'no-such-token')).status).toBe('unknown');
    });
  });
});
