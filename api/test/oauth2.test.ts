import { createHash, randomBytes } from 'node:crypto';
import { findUserByName } from '@earshot/catalogue';
import {
  type AuthorizationRequest,
  createApiCredential,
  isPermissionGrantedUrl,
  type OAuth2Service,
  PERMISSION_GRANTED_PATH,
} from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/index.ts';

// Black-box tests of the OAuth2 rules (API.md "Authentication"): codes come from the use cases the
// authorize page will call (startAuthorization + grant), everything else goes over HTTP.
const REDIRECT = 'https://app.example/callback';
let clock = Date.now();
const now = () => new Date(clock);

let s: TestServer;
let oauth: OAuth2Service;
let app: { client_id: string; client_secret: string };
let userId: number;

beforeAll(async () => {
  s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false' }, { now });
  oauth = s.deps.oauth2 as OAuth2Service;
  app = await createApiCredential(s.catalogue.db, {
    username: 'carol',
    name: 'Sound App',
    redirectUri: REDIRECT,
  });
  userId = (await findUserByName(s.catalogue.db, 'carol'))?.id as number;
}, 120_000);
afterAll(() => s?.stop());

const authorize = (extra: AuthorizationRequest = {}): AuthorizationRequest => ({
  client_id: app.client_id,
  response_type: 'code',
  state: 'st-42 ok',
  ...extra,
});

async function code(extra: AuthorizationRequest = {}): Promise<string> {
  const outcome = await oauth.grant(userId, authorize(extra));
  if (outcome.kind !== 'redirect') throw new Error(`no redirect: ${JSON.stringify(outcome)}`);
  const url = new URL(outcome.redirectUrl);
  expect(url.origin + url.pathname).toBe(REDIRECT);
  expect(url.searchParams.get('state')).toBe('st-42 ok');
  return url.searchParams.get('code') as string;
}

function post(params: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${s.origin}/apiv2/oauth2/access_token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
}

const exchange = (c: string, extra: Record<string, string> = {}) =>
  post({
    grant_type: 'authorization_code',
    client_id: app.client_id,
    client_secret: app.client_secret,
    code: c,
    ...extra,
  });

async function tokens(extra: AuthorizationRequest = {}) {
  const res = await exchange(await code(extra));
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

const me = (token: string, headers: Record<string, string> = {}) =>
  fetch(`${s.origin}/apiv2/me/`, { headers: { Authorization: `Bearer ${token}`, ...headers } });

async function expectError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Record<string, string>;
  expect(body.error).toBe(error);
  expect(typeof body.detail).toBe('string');
}

describe('OAuth2 authorization code grant', () => {
  it('startAuthorization: sign in first, then consent naming the application; bad requests never redirect', async () => {
    expect(await oauth.startAuthorization(authorize(), undefined)).toEqual({ kind: 'sign-in' });
    const consent = await oauth.startAuthorization(authorize(), userId);
    expect(consent).toMatchObject({
      kind: 'consent',
      application: { name: 'Sound App' },
      scope: ['read', 'write'],
    });
    expect(await oauth.startAuthorization(authorize({ client_id: 'nope' }), userId)).toMatchObject({
      kind: 'error-page',
      status: 400,
    });
    expect(
      await oauth.startAuthorization(authorize({ redirect_uri: 'https://evil.example/cb' }), userId),
    ).toMatchObject({ kind: 'error-page' });
    const badType = await oauth.startAuthorization(authorize({ response_type: 'token' }), userId);
    expect(badType.kind).toBe('redirect');
    const url = new URL((badType as { redirectUrl: string }).redirectUrl);
    expect(url.searchParams.get('error')).toBe('unsupported_response_type');
    expect(url.searchParams.get('state')).toBe('st-42 ok');
  });

  it('deny redirects with error=access_denied and the state unchanged', async () => {
    const outcome = await oauth.deny(authorize());
    const url = new URL((outcome as { redirectUrl: string }).redirectUrl);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('st-42 ok');
    expect(url.searchParams.get('code')).toBeNull();
  });

  it('exchanges a code once for the contract’s token response; Bearer reaches /apiv2/me/', async () => {
    const c = await code();
    const res = await exchange(c);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, string>;
    expect(body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 86400,
      scope: 'read write',
    });
    const mine = await me(body.access_token);
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({
      username: 'carol',
      email: expect.any(String),
      unique_id: userId,
    });
    await expectError(await exchange(c), 400, 'invalid_grant');
  });

  it('checks the client: wrong or missing secret 401 invalid_client, foreign redirect_uri 400', async () => {
    await expectError(await exchange(await code(), { client_secret: 'x'.repeat(40) }), 401, 'invalid_client');
    // A missing secret is a missing client authentication: invalid_client, as the original answers.
    await expectError(
      await post({ grant_type: 'authorization_code', client_id: app.client_id, code: await code() }),
      401,
      'invalid_client',
    );
    await expectError(
      await exchange(await code(), { redirect_uri: 'https://other.example/' }),
      400,
      'invalid_request',
    );
    // The password grant is not enabled for the credential (the original: unauthorized_client).
    await expectError(await post({ grant_type: 'password', ...app }), 400, 'unauthorized_client');
    await expectError(await post({ grant_type: 'magic', ...app }), 400, 'unsupported_grant_type');
  });

  it('a code lives 10 minutes', async () => {
    const c = await code();
    clock += 10 * 60 * 1000 + 1000;
    await expectError(await exchange(c), 400, 'invalid_grant');
  });

  it('accepts PKCE S256 and refuses a wrong verifier', async () => {
    const verifier = randomBytes(40).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
    expect((await exchange(await code(pkce), { code_verifier: verifier })).status).toBe(200);
    const wrong = randomBytes(40).toString('base64url');
    await expectError(await exchange(await code(pkce), { code_verifier: wrong }), 400, 'invalid_grant');
  });

  it('one token per pair: a new authorization (granted automatically) replaces the old token', async () => {
    const first = await tokens();
    const start = await oauth.startAuthorization(authorize(), userId);
    expect(start.kind).toBe('redirect'); // a token exists: no consent asked
    const c = new URL((start as { redirectUrl: string }).redirectUrl).searchParams.get('code') as string;
    const second = (await (await exchange(c)).json()) as Record<string, string>;
    expect((await me(second.access_token)).status).toBe(200);
    const old = await me(first.access_token);
    expect(old.status).toBe(401);
    expect(await old.json()).toEqual({ detail: 'Invalid token' });
  });

  it('refresh rotates both tokens; the old ones stop working', async () => {
    const first = await tokens();
    expect((await me(first.access_token)).status).toBe(200); // cached now
    const refresh = () =>
      post({
        grant_type: 'refresh_token',
        client_id: app.client_id,
        client_secret: app.client_secret,
        refresh_token: first.refresh_token,
      });
    const res = await refresh();
    expect(res.status).toBe(200);
    const next = (await res.json()) as Record<string, string>;
    expect(next.access_token).not.toBe(first.access_token);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect((await me(next.access_token)).status).toBe(200);
    expect((await me(first.access_token)).status).toBe(401);
    await expectError(await refresh(), 400, 'invalid_grant');
  });

  it('an access token lives 24 hours (then 401 Expired token), can still be refreshed and auto-grants', async () => {
    const t = await tokens();
    expect((await me(t.access_token)).status).toBe(200);
    clock += 24 * 60 * 60 * 1000;
    const expired = await me(t.access_token);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ detail: 'Expired token' });
    expect((await oauth.startAuthorization(authorize(), userId)).kind).toBe('redirect');
    const res = await post({ grant_type: 'refresh_token', ...app, refresh_token: t.refresh_token });
    expect(res.status).toBe(200);
    expect((await me(((await res.json()) as Record<string, string>).access_token)).status).toBe(200);
  });

  it('revocation: 401 Invalid token at once (also on the hot path), refresh refused, consent asked again', async () => {
    const t = await tokens();
    const sound = `${s.origin}/apiv2/sounds/${s.seeded.ids.bd_808}/`;
    const auth = { headers: { Authorization: `Bearer ${t.access_token}` } };
    expect((await fetch(sound, auth)).status).toBe(200);
    expect((await fetch(sound, auth)).status).toBe(200); // served by the hot path
    const listed = await oauth.listAuthorizedApplications(userId);
    expect(listed.map((a) => a.clientId)).toEqual([app.client_id]);
    await oauth.revokeApplication(userId, app.client_id);
    const after = await fetch(sound, auth);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ detail: 'Invalid token' });
    expect((await me(t.access_token)).status).toBe(401);
    await expectError(
      await post({ grant_type: 'refresh_token', ...app, refresh_token: t.refresh_token }),
      400,
      'invalid_grant',
    );
    expect(await oauth.listAuthorizedApplications(userId)).toEqual([]);
    expect((await oauth.startAuthorization(authorize(), userId)).kind).toBe('consent');
  });

  it('/apiv2/me/ refuses an API key with the contract’s detail', async () => {
    const res = await fetch(`${s.origin}/apiv2/me/`, {
      headers: { Authorization: `Token ${app.client_secret}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect((await fetch(`${s.origin}/apiv2/me/?token=${app.client_secret}`)).status).toBe(401);
    expect((await me('no-such-token')).status).toBe(401);
  });

  it('an application without a web server gets the service’s own code page as redirect', async () => {
    const local = await createApiCredential(s.catalogue.db, {
      username: 'carol',
      name: 'Script',
      redirectUri: `${s.origin}${PERMISSION_GRANTED_PATH}`,
    });
    const outcome = await oauth.grant(userId, { client_id: local.client_id, response_type: 'code' });
    const url = (outcome as { redirectUrl: string }).redirectUrl;
    expect(isPermissionGrantedUrl(url)).toBe(true);
    expect(new URL(url).searchParams.get('code')).toMatch(/.+/);
    expect(new URL(url).searchParams.has('state')).toBe(false);
  });
});

describe('OAuth2 over https only (OAUTH2_HTTPS_ONLY default)', () => {
  let h: TestServer;
  beforeAll(async () => {
    h = await startTestServer({ TRUST_PROXY: '1' });
  }, 120_000);
  afterAll(() => h?.stop());

  it('refuses the token endpoint and bearer requests over plain http with a 403; X-Forwarded-Proto https passes', async () => {
    const service = h.deps.oauth2 as OAuth2Service;
    const local = await createApiCredential(h.catalogue.db, {
      username: 'dave',
      name: 'A',
      redirectUri: REDIRECT,
    });
    const dave = (await findUserByName(h.catalogue.db, 'dave'))?.id as number;
    const outcome = await service.grant(dave, { client_id: local.client_id, response_type: 'code' });
    const c = new URL((outcome as { redirectUrl: string }).redirectUrl).searchParams.get('code') as string;
    const params = {
      grant_type: 'authorization_code',
      client_id: local.client_id,
      client_secret: local.client_secret,
      code: c,
    };
    const send = (headers: Record<string, string>) =>
      fetch(`${h.origin}/apiv2/oauth2/access_token/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(params),
      });
    const plain = await send({});
    expect(plain.status).toBe(403);
    expect(await plain.json()).toEqual({ detail: 'This resource requires a secure connection (https)' });
    const secure = await send({ 'X-Forwarded-Proto': 'https' });
    expect(secure.status).toBe(200);
    const token = ((await secure.json()) as Record<string, string>).access_token;
    const bearer = { Authorization: `Bearer ${token}` };
    const overHttp = await fetch(`${h.origin}/apiv2/me/`, { headers: bearer });
    expect(overHttp.status).toBe(403);
    expect(await overHttp.json()).toEqual({ detail: 'This resource requires a secure connection (https)' });
    const sound = `${h.origin}/apiv2/sounds/${h.seeded.ids.bd_808}/`;
    expect((await fetch(sound, { headers: bearer })).status).toBe(403);
    expect(
      (await fetch(`${h.origin}/apiv2/me/`, { headers: { ...bearer, 'X-Forwarded-Proto': 'https' } })).status,
    ).toBe(200);
    // API keys are not OAuth2: plain http stays fine for them.
    expect((await fetch(`${sound}?token=${local.client_secret}`)).status).toBe(200);
  });
});
