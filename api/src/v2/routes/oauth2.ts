import type { OAuth2Service } from '@earshot/services';
import { z } from 'zod';
import { HttpsRequired } from '../../framework/auth/errors.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

const tokenParams = z.object({
  grant_type: z.string().optional().describe('`authorization_code` or `refresh_token`'),
  client_id: z.string().optional().describe('client id of the credential'),
  client_secret: z.string().optional().describe('client secret of the credential'),
  code: z.string().optional().describe('the authorization code (authorization_code)'),
  redirect_uri: z.string().optional().describe("the credential's redirect URL; default that one"),
  code_verifier: z.string().optional().describe('PKCE verifier, when the code was issued with a challenge'),
  refresh_token: z.string().optional().describe('the refresh token (refresh_token)'),
});

const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string(),
});

/** The OAuth2 token endpoint; the authorize pages belong to the web layer and call the same service. */
export function oauth2Routes(oauth2: OAuth2Service, options: { httpsOnly: boolean }): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/apiv2/oauth2/access_token/',
      operationId: 'oauth2AccessToken',
      summary: 'Exchange an authorization code or a refresh token for an access token',
      description:
        'Form parameters. Errors follow RFC 6749 (`error`, `error_description`) and also carry `detail`: ' +
        '400 `invalid_grant` for a bad, expired or reused code or refresh token, 401 `invalid_client` for an ' +
        'unknown client or a wrong secret. Plain http is a 403 unless OAUTH2_HTTPS_ONLY=false.',
      tags: ['oauth2'],
      auth: 'public',
      // OAuth2 clients post to the address they were given, and a redirect would lose the body.
      optionalSlash: true,
      query: tokenParams,
      bodyParams: true,
      response: tokenResponse,
      errors: [403],
      handler: async ({ ctx, rawQuery }) => {
        if (options.httpsOnly && !ctx.secure) throw new HttpsRequired();
        const answer = await oauth2.token({
          params: rawQuery,
          authorization: ctx.get('Authorization') || undefined,
          form: Boolean(ctx.is('application/x-www-form-urlencoded', 'multipart/form-data')),
        });
        ctx.status = answer.status;
        ctx.set(answer.headers);
        ctx.body = answer.body;
        return { handled: true };
      },
    }),
  ];
}
