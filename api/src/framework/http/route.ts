import type { Context } from 'koa';
import type { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import type { RateLimitClass } from '../rate-limits/policy.ts';
import type { FileFieldSpec, UploadedFile } from './multipart-fields.ts';
import type { RenderedJson } from './rendered-json.ts';

/**
 * Who may call a route. `public` needs nothing (previews, images, the OpenAPI document); `read`
 * accepts an API key or an OAuth2 bearer token; `oauth2` only a bearer token (later issue).
 */
export type AuthRequirement = 'public' | 'read' | 'oauth2';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The OAuth2 scope a request's grant must hold (API keys hold `read` only; a web session both). */
export type RouteScope = 'read' | 'write';

/** What a handler sees: validated inputs plus the request facts links and auth need. */
export interface HandlerInput<Q, P> {
  query: Q;
  params: P;
  /** The raw query (after client-quirk cleaning), for links that must echo the request. */
  rawQuery: Record<string, string>;
  /** Absolute origin links are built from: PUBLIC_URL or the request's own scheme and host. */
  origin: string;
  /** The path the request came in on, without the query. */
  path: string;
  principal: Principal | null;
  /**
   * On a public route, the caller as an OAuth2 resource would admit them (a bearer token or a web
   * session, https and rate limits as there; an API key does not count), or null when the request
   * carries neither: for an answer that depends on who asks, read only when it does.
   */
  identify: () => Promise<Principal | null>;
  /** The files of a multipart body, by field, for routes that declare `files`; temporary files are deleted after the handler. */
  files: Record<string, UploadedFile>;
  ctx: Context;
}

/** A file a POST route takes in a multipart body (documented in the OpenAPI document's request body). */
export type RouteFileField = FileFieldSpec & {
  description: string;
  /** A request carrying this file also counts against this class of limits (besides the route's own). */
  rateLimit?: RateLimitClass;
};

/**
 * A handler returns the body to render (possibly already serialized, see RenderedJson), or takes
 * over the response itself (files).
 */
export type HandlerResult<R> = R | RenderedJson | { handled: true };

/**
 * One route, declared once: the router validates with these schemas, handlers get their types from
 * them, and the OpenAPI document is generated from them. Paths use OpenAPI's `{name}` syntax.
 */
export interface RouteDef<
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthRequirement;
  /**
   * The scope the caller's grant must hold; default `read` for GET and `write` for every other
   * method, so a new route that changes something needs `write` unless it says otherwise (the
   * searches that also take POST say `read`). See routeScope.
   */
  scope?: RouteScope;
  /**
   * The limits a credentialed request counts against (default `standard`); the write resources
   * (upload, describe, edit, comment, rate, bookmark) set `strict`. Public routes are not counted.
   */
  rateLimit?: RateLimitClass;
  query?: Q;
  params?: P;
  /**
   * The query parameters may also come in the body (url-encoded or multipart form, JSON object), as
   * the contract allows for POST; a name in both takes the body's value.
   */
  bodyParams?: boolean;
  /** File fields a multipart body may carry (with `bodyParams`); any other file part is a 400. */
  files?: Readonly<Record<string, RouteFileField>>;
  /**
   * Served at its path without the trailing slash too, with no redirect (upstream's token endpoint is
   * `access_token[/]*`); other version 2 paths written without it are redirected (http/append-slash.ts).
   */
  optionalSlash?: boolean;
  /**
   * The largest body accepted, in bytes, when not the default (routes with `files` derive theirs),
   * and how a refused client is told what it is made of (middleware/body-limit.ts `filesAllowance`).
   */
  bodyLimit?: { bytes: number; allowance?: string };
  /** Schema of the JSON body; `file` for routes that stream a file; `event-stream` for server-sent events. */
  response: R | 'file' | 'event-stream';
  /** Extra documented error statuses (400/401/404/405 are added by the generator as they apply). */
  errors?: number[];
  handler: (input: HandlerInput<z.output<Q>, z.output<P>>) => Promise<HandlerResult<z.input<R>>>;
}

/** Identity function that keeps the schema types linked to the handler's types. */
export function defineRoute<Q extends z.ZodType, P extends z.ZodType, R extends z.ZodType>(
  def: RouteDef<Q, P, R>,
): RouteDef<Q, P, R> {
  return def;
}

export type AnyRoute = RouteDef<any, any, any>;

/**
 * The scope a route needs: what it declares, else `write` for any method but GET. The router checks
 * it for every caller (mount.ts), so no handler has to remember to.
 */
export function routeScope(route: Pick<AnyRoute, 'method' | 'scope'>): RouteScope {
  return route.scope ?? (route.method === 'GET' ? 'read' : 'write');
}

/**
 * `/apiv2/sounds/{sound_id}/` → `/apiv2/sounds/:sound_id/` for @koa/router. A last parameter
 * written `/{name...}` takes the rest of the path, slashes included, and may be absent.
 * `optionalSlash` makes the trailing slash optional (version 1 answers with and without it).
 */
export function toRouterPath(path: string, optionalSlash = false): string {
  const routerPath = path
    .replace(/\/\{([A-Za-z0-9_]+)\.\.\.\}$/, '{/*$1}')
    .replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
  return optionalSlash && routerPath.endsWith('/') ? `${routerPath.slice(0, -1)}{/}` : routerPath;
}

/** The OpenAPI form of a route's path: a rest-of-path parameter is a plain `{name}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\.\.\.\}/g, '{$1}');
}
