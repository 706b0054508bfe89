import { type Db, findUserByName } from '@earshot/catalogue';
import { createApiCredential, OAuth2Service } from '@earshot/services';

/**
 * An OAuth2 Bearer token acting for `username` (created when missing), obtained the way an
 * application does: a credential, the user's grant (what the consent page calls), then the code
 * exchanged at the token endpoint over HTTP.
 */
export async function bearerToken(
  db: Db,
  origin: string,
  username: string,
): Promise<{ accessToken: string; userId: number; apiKey: string }> {
  const redirectUri = 'https://app.example/callback';
  const app = await createApiCredential(db, { username, name: `${username}'s app`, redirectUri });
  const userId = (await findUserByName(db, username))?.id as number;
  const outcome = await new OAuth2Service({ db }).grant(userId, {
    client_id: app.client_id,
    response_type: 'code',
  });
  if (outcome.kind !== 'redirect') throw new Error(`no code: ${JSON.stringify(outcome)}`);
  const code = new URL(outcome.redirectUrl).searchParams.get('code') as string;
  const res = await fetch(`${origin}/apiv2/oauth2/access_token/`, {
    method: 'POST',
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
