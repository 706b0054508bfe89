import { type Db, findUserByName } from '@earshot/catalogue';
import { createApiCredential, OAuth2Service } from '@earshot/services';
import type { TestServer } from './server.ts';

const REDIRECT = 'https://app.example/callback';

export interface BearerGrantOptions {
  scope?: string;
  /** The application's rate-limit level (default `standard`). */
  level?: string;
}

/**
 * An OAuth2 access token acting for `username` (created when missing), obtained the way an
 * application does: its own credential (so tokens of different calls never replace one another),
 * the user's grant (what the consent page calls), then the code exchanged at the token endpoint
 * over HTTP. Also answers the user's id and the application's API key.
 */
export async function bearerGrant(
  db: Db,
  origin: string,
  username: string,
  options: BearerGrantOptions = {},
): Promise<{ accessToken: string; userId: number; apiKey: string }> {
  const app = await createApiCredential(db, {
    username,
    name: `App ${Math.random().toString(36).slice(2, 8)}`,
    redirectUri: REDIRECT,
    ...(options.level ? { level: options.level } : {}),
  });
  const userId = (await findUserByName(db, username))?.id;
  if (userId === undefined) throw new Error(`no user ${username}`);
  const outcome = await new OAuth2Service({ db }).grant(userId, {
    client_id: app.client_id,
    response_type: 'code',
    ...(options.scope ? { scope: options.scope } : {}),
  });
  if (outcome.kind !== 'redirect') throw new Error(`no code: ${JSON.stringify(outcome)}`);
  const code = new URL(outcome.redirectUrl).searchParams.get('code') as string;
  const res = await fetch(`${origin}/apiv2/oauth2/access_token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-Proto': 'https' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: app.client_id,
      client_secret: app.client_secret,
      code,
    }),
  });
  if (res.status !== 200) throw new Error(`token exchange: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { access_token: string };
  return { accessToken: body.access_token, userId, apiKey: app.client_secret };
}

/** A test server's Bearer token for `username`, its application `unlimited` unless `level` says otherwise. */
export async function bearerToken(
  server: TestServer,
  username: string,
  options: BearerGrantOptions = {},
): Promise<string> {
  const grant = await bearerGrant(server.catalogue.db, server.origin, username, {
    ...options,
    level: options.level ?? 'unlimited',
  });
  return grant.accessToken;
}
