import { NotFoundError, ValidationError } from '@earshot/common';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { NotAuthenticated } from '../auth/errors.ts';
import type { Principal } from '../auth/principal.ts';
import { CSRF_FIELD, CSRF_HEADER, SESSION_COOKIE } from '../auth/session-strategy.ts';
import { type AdmissionOptions, admit } from './admission.ts';
import { type BodyContent, readBody as readRequestBody } from './body-params.ts';
import { requestOrigin } from './origin.ts';
import { readRawQuery } from './raw-query.ts';
import { RenderedJson } from './rendered-json.ts';
import { type AnyRoute, routeScope, toRouterPath } from './route.ts';
import { newRouter } from './router.ts';
import { throttle } from './throttle.ts';

export interface MountOptions extends AdmissionOptions {
  publicUrl: string | undefined;
  /** Host names links may be built from when publicUrl is unset (http/origin.ts). */
  allowedHosts?: readonly string[];
  /**
   * Version 1: the trailing slash is optional, and the API key may come as this query parameter
   * (`api_key`) as well as version 2's `token`.
   */
  legacy?: { keyParameter: string };
}

/**
 * Turns route definitions into a Koa router: authenticate, validate path and query (merged with
 * the body's parameters when the route takes them) against the route's schemas (400 naming the parameter; a malformed path id is a 404 like a missing object),
 * call the handler and leave the body for the renderer.
 */
export function mountRoutes(routes: readonly AnyRoute[], options: MountOptions): Router {
  const router = newRouter();
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](
      route.operationId,
      toRouterPath(route.path, options.legacy !== undefined || route.optionalSlash === true),
      async (ctx: Context) => {
        const queryString: Record<string, string> = ctx.state.rawQuery ?? readRawQuery(ctx.querystring);
        // The body is read at most once: by a session's CSRF check and/or as the route's parameters.
        let body: Promise<BodyContent> | undefined;
        const readBody = () => {
          body ??= readRequestBody(ctx, route.files);
          return body;
        };
        // The credential is read from the query string and headers only (a session's CSRF token may
        // come in the form), before any other part of the body is read.
        const principal = await authorize(
          route,
          ctx,
          queryString,
          options,
          async () => (await readBody()).params,
        );
        try {
          await answer(
            route,
            ctx,
            queryString,
            principal,
            options,
            route.bodyParams ? await readBody() : undefined,
          );
        } finally {
          // Temporary upload files never outlive their request, whatever the answer.
          if (body) await (await body.catch(() => undefined))?.cleanup();
        }
      },
    );
  }
  return router;
}

async function answer(
  route: AnyRoute,
  ctx: Context,
  queryString: Record<string, string>,
  principal: Principal | null,
  options: MountOptions,
  body: BodyContent | undefined,
): Promise<void> {
  const rawQuery = body ? { ...queryString, ...body.params } : queryString;
  const files = body?.files ?? {};
  // A file that costs more (an audio clip to analyze) counts against its stricter limits too.
  for (const name of Object.keys(files)) {
    const cls = route.files?.[name]?.rateLimit;
    if (cls && principal && options.rateLimiter) await throttle(ctx, options.rateLimiter, principal, cls);
  }
  // The browseable API's forms carry the CSRF token: it is no search parameter (links echo them).
  if (principal?.strategy === 'session') delete rawQuery[CSRF_FIELD];
  const params = parseParams(route.params, ctx.params);
  const query = parseQuery(route.query, rawQuery);
  const result = await route.handler({
    query,
    params,
    rawQuery,
    origin: requestOrigin(ctx, options),
    path: ctx.path,
    principal,
    identify: async () => principal ?? identifyCaller(ctx, queryString, options),
    files,
    ctx,
  });
  if (result && typeof result === 'object' && (result as { handled?: unknown }).handled === true) return;
  ctx.status = 200;
  // A bare string or number (a leaf of an analysis tree) is data too: Koa would send a string as
  // text/plain, so it goes to the renderer as an already-valued body, serialized in the format asked.
  ctx.body =
    typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean'
      ? new RenderedJson(result)
      : result;
}

/**
 * The caller of a public route, admitted as an OAuth2-only resource admits (admission.ts): null when
 * the request carries no bearer token or session (an API key is no OAuth2 credential there); a bad
 * token, plain http or a spent limit are refused as there.
 */
async function identifyCaller(
  ctx: Context,
  rawQuery: Record<string, string>,
  options: MountOptions,
): Promise<Principal | null> {
  try {
    const request = {
      authorization: ctx.get('Authorization') || undefined,
      query: rawQuery,
      secure: ctx.secure,
      method: ctx.method,
      sessionId: ctx.cookies.get(SESSION_COOKIE) || undefined,
      csrfToken: async () => ctx.get(CSRF_HEADER) || undefined,
    };
    const admitted = await admit(options, request, { auth: 'oauth2', scope: 'read', rateLimit: 'standard' });
    if (admitted.rateLimitHeaders) ctx.set(admitted.rateLimitHeaders);
    ctx.state.principal = admitted.principal;
    return admitted.principal;
  } catch (err) {
    if (err instanceof NotAuthenticated) return null;
    throw err;
  }
}

/** Admits the request as the route declares (admission.ts); a public route admits anyone, uncounted. */
async function authorize(
  route: AnyRoute,
  ctx: Context,
  rawQuery: Record<string, string>,
  options: MountOptions,
  readBody: () => Promise<Record<string, string>>,
): Promise<Principal | null> {
  if (route.auth === 'public') return null;
  const keyParameter = options.legacy?.keyParameter;
  const query =
    keyParameter && rawQuery[keyParameter] !== undefined && rawQuery.token === undefined
      ? { ...rawQuery, token: rawQuery[keyParameter] }
      : rawQuery;
  const request = {
    authorization: ctx.get('Authorization') || undefined,
    query,
    secure: ctx.secure,
    method: ctx.method,
    sessionId: ctx.cookies.get(SESSION_COOKIE) || undefined,
    csrfToken: async () => ctx.get(CSRF_HEADER) || (await readBody())[CSRF_FIELD],
  };
  const gate = { auth: route.auth, scope: routeScope(route), rateLimit: route.rateLimit ?? 'standard' };
  // A refusal is answered by the error handler (errorAnswer), a 429 with the verdict's headers.
  const admitted = await admit(options, request, gate);
  if (admitted.rateLimitHeaders) ctx.set(admitted.rateLimitHeaders);
  ctx.state.principal = admitted.principal;
  return admitted.principal;
}

function parseParams(schema: z.ZodType | undefined, raw: Record<string, string>): unknown {
  if (!schema) return raw;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new NotFoundError('Not found');
  return parsed.data;
}

function parseQuery(schema: z.ZodType | undefined, raw: Record<string, string>): unknown {
  if (!schema) return raw;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue.path[0] ?? 'query');
  throw new ValidationError(`Invalid value for parameter '${name}': ${issue.message}`);
}
