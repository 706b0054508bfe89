import { z } from 'zod';
import type { ApiServices } from '../../application/index.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import type { RateLimiter } from '../../framework/rate-limits/rate-limiter.ts';
import { meSchema } from '../presenters/schemas.ts';
import { serializeMe } from '../presenters/user.ts';

const windowSchema = z.object({
  limit: z.number().int().describe('requests the window allows'),
  used: z.number().int().describe('requests it holds now'),
  remaining: z.number().int().describe('requests left in it now (X-RateLimit-Remaining)'),
  reset: z.number().int().describe('seconds until everything counted has slid out (X-RateLimit-Reset)'),
});
const classSchema = z
  .union([z.object({ minute: windowSchema, day: windowSchema }), z.enum(['unlimited', 'suspended'])])
  .describe("the class's sliding windows, or unlimited (not counted) or suspended (refused)");
const limitsSchema = z.object({
  level: z
    .enum(['suspended', 'standard', 'elevated', 'high', 'unlimited'])
    .describe("the credential's level"),
  standard: classSchema,
  strict: classSchema.describe('upload, describe, edit, comment, rate, bookmark'),
});

/** Resources about the end user an OAuth2 token acts for, and about the credential a request uses. */
export function meRoutes(s: ApiServices, rateLimiter?: RateLimiter): AnyRoute[] {
  return [
    ...(rateLimiter ? [limitsRoute(rateLimiter)] : []),
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/',
      operationId: 'me',
      summary: 'The user the OAuth2 token acts for: the user record plus email and unique_id',
      tags: ['users'],
      auth: 'oauth2',
      response: meSchema,
      errors: [403],
      // auth 'oauth2' guarantees a bearer (or web session) principal here.
      handler: async ({ principal, origin }) =>
        serializeMe(await s.people.me((principal as { userId: number }).userId), origin),
    }),
  ];
}

/**
 * The credential's quota: the use of its standard and strict windows (docs/api.md "Limits"). The
 * request itself counts as a standard one, as every credentialed request does.
 */
function limitsRoute(rateLimiter: RateLimiter): AnyRoute {
  return defineRoute({
    method: 'GET',
    path: '/apiv2/me/limits/',
    operationId: 'myLimits',
    summary: "earshot: the credential's rate limits and their use now, standard and strict windows",
    tags: ['users'],
    auth: 'read',
    response: limitsSchema,
    // auth 'read' guarantees a principal here.
    handler: async ({ principal }) => rateLimiter.usage(principal as NonNullable<typeof principal>),
  });
}
