import type { OAuth2Service } from '@earshot/services';

/**
 * An access token for `userId` through the authorization-code grant, as the consent page and the
 * token endpoint run it (without HTTP): a code, then its exchange with the application's secret.
 */
export async function accessToken(
  oauth: OAuth2Service,
  app: { client_id: string; client_secret: string },
  userId: number,
): Promise<string> {
  const request = { client_id: app.client_id, response_type: 'code', state: 'bench' };
  const start = await oauth.startAuthorization(request, userId);
  const outcome = start.kind === 'redirect' ? start : await oauth.grant(userId, request);
  if (outcome.kind !== 'redirect') throw new Error(`no code: ${JSON.stringify(outcome)}`);
  const code = new URL(outcome.redirectUrl).searchParams.get('code') as string;
  const answer = await oauth.exchangeCode({
    client_id: app.client_id,
    client_secret: app.client_secret,
    code,
  });
  if (answer.status !== 200) throw new Error(`no token: ${JSON.stringify(answer)}`);
  return (answer.body as { access_token: string }).access_token;
}
