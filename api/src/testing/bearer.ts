import { findUserByName } from '@earshot/catalogue';
import { createApiCredential, type OAuth2Service } from '@earshot/services';
import type { TestServer } from './server.ts';

const REDIRECT = 'https://app.example/callback';

/**
 * An OAuth2 access token for a seeded user, obtained the way an application does: a code from the
 * authorize use case (what the consent page calls), exchanged at the token endpoint over HTTP. Each
 * call registers its own application (rate-limit level `unlimited` unless `level` says otherwise), so
 * tokens of different calls never replace one another.
 */
export async function bearerToken(
  server: TestServer,
  username: string,
  options: { scope?: string; level?: string } = {},
): Promise<string> {
  const oauth = server.deps.oauth2 as OAuth2Service;
  const app = await createApiCredential(server.catalogue.db, {
    username,
    name: `App ${Math.random().toString(36).slice(2, 8)}`,
    redirectUri: REDIRECT,
    level: options.level ?? 'unlimited',
  });
  const user = await findUserByName(server.catalogue.db, username);
  if (!user) throw new Error(`no user ${username}`);
  const outcome = await oauth.grant(user.id, {
    client_id: app.client_id,
    response_type: 'code',
    ...(options.scope ? { scope: options.scope } : {}),
  });
  if (outcome.kind !== 'redirect') throw new Error(`no redirect: ${JSON.stringify(outcome)}`);
  const code = new URL(outcome.redirectUrl).searchParams.get('code') as string;
  const res = await fetch(`${server.origin}/apiv2/oauth2/access_token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-Proto': 'https' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: app.client_id,
      client_secret: app.client_secret,
      code,
    }),
  });
  if (res.status !== 200) throw new Error(`token endpoint: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
