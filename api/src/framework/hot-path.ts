import type { IncomingMessage, ServerResponse } from 'node:http';
import { isCatalogueUnavailable } from '@earshot/catalogue';
import { EarshotError, type Logger } from '@earshot/common';
import type { z } from 'zod';
import { type RenderedCache, RenderedJson } from '../caches/rendered-json.ts';
import type { SearchPageCache } from '../caches/search-pages.ts';
import { similarQuery, soundInstanceQuery } from '../v2/routes/query-schemas.ts';
import type { SimilarInput } from '../v2/routes/sounds.ts';
import { authenticate } from './auth/authenticate.ts';
import type { AuthStrategy, Principal } from './auth/principal.ts';
import { clientFacts } from './http/forwarded.ts';
import { linkOrigin } from './http/origin.ts';
import { idParam } from './http/params.ts';
import { readRawQuery } from './http/raw-query.ts';
import { negotiate, wantsHtml } from './http/render.ts';
import { API_CSP, CONTENT_TYPE_OPTIONS, FRAME_OPTIONS, REFERRER_POLICY } from './http/security-headers.ts';
import { soundInstanceKey, v1SoundInstanceKey } from './http/sound-instance-key.ts';
import { UNAVAILABLE_DETAIL, UNAVAILABLE_RETRY_AFTER_S } from './middleware/errors.ts';
import { hasNul } from './middleware/nul-bytes.ts';
import { requestIdFrom } from './middleware/request-context.ts';
import {
  UNAVAILABLE_LOG_MESSAGE,
  type UnavailableCause,
  unavailableCause,
} from './middleware/unavailable-log.ts';
import type { RateLimiter } from './rate-limits/rate-limiter.ts';

export interface HotPathOptions {
  /** TRUST_PROXY: the scheme and host are read as the application reads them (http/forwarded.ts). */
  trustedHops?: number;
  renderedSounds: RenderedCache;
  /** Rendered search pages (kept until the catalogue changes); absent = no search hot path. */
  searchPages?: SearchPageCache;
  strategies: readonly AuthStrategy[];
  /** Counts the requests answered here, as the application counts the others. */
  rateLimiter?: RateLimiter;
  publicUrl: string | undefined;
  /** Host names links may be built from when publicUrl is unset (http/origin.ts). */
  allowedHosts?: readonly string[];
  logger: Logger;
  /** OAUTH2_HTTPS_ONLY: a bearer request over plain http goes to the application's 403. */
  httpsOnly?: boolean;
  /**
   * Reads and renders a version 2 sound instance that is not in `renderedSounds` (the route's own
   * function); absent = such requests go to the application. Its errors are answered here.
   */
  renderSound?: (id: number, origin: string, query: SoundInstanceQuery) => Promise<RenderedJson>;
  /** The same for a page of similar sounds not in `searchPages` (the route's own function). */
  renderSimilar?: (id: number, input: SimilarInput) => Promise<unknown>;
}

type SoundInstanceQuery = z.infer<typeof soundInstanceQuery>;

/** Answers a request itself (true) or leaves it untouched for the application (false). */
export type HotPath = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

const SOUND_INSTANCE = /^\/apiv2\/sounds\/(\d{1,15})\/$/;
/** Query keys the sound instance reads; anything else goes the full way. */
const INSTANCE_KEYS = new Set(['fields', 'descriptors', 'normalized', 'token', 'format']);
const SIMILAR_SOUNDS = /^\/apiv2\/sounds\/(\d{1,15})\/similar\/$/;
/** Version 1's sound and sound search, with or without the trailing slash, keyed by `api_key` too. */
const V1_SOUND_INSTANCE = /^\/api\/sounds\/(\d{1,15})\/?$/;
const V1_INSTANCE_KEYS = new Set(['api_key', 'token', 'format']);
const V1_SEARCH_PATHS = new Set(['/api/sounds/search/', '/api/sounds/search']);
/** Search paths (and similar sounds) whose pages are kept whole: the page key is the whole query string, so any keys. */
const SEARCH_PATHS = new Set([
  '/apiv2/search/',
  '/apiv2/search/text/',
  '/apiv2/search/content/',
  '/apiv2/search/combined/',
]);

/**
 * Serves a sound instance whose JSON was rendered moments ago (or a search page rendered since the
 * catalogue last changed) straight from node:http, without
 * Koa and the router: in the profile their per-request work was most of the route's cost once the
 * body itself came from the cache (the route ran at ~21% of a bare node:http server). Only the
 * plainest case is taken: GET, JSON by format and Accept, a credential the strategies accept, a
 * cache entry — or, for a version 2 sound instance, `renderSound` (the route's own read and
 * render, run after the same authentication and rate limit). Everything else (a search miss, a
 * bad or missing key, XML/YAML, other parameters, HEAD)
 * falls through to the application, which answers exactly as before and fills the cache. The
 * response carries the same headers the application sends.
 */
export function soundInstanceHotPath(options: HotPathOptions): HotPath {
  return async (req, res) => {
    if (req.method !== 'GET' || req.url === undefined) return false;
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const v1 = path.startsWith('/api/');
    const search =
      options.searchPages !== undefined &&
      (v1 ? V1_SEARCH_PATHS.has(path) : SEARCH_PATHS.has(path) || SIMILAR_SOUNDS.test(path));
    const match = search ? null : (v1 ? V1_SOUND_INSTANCE : SOUND_INSTANCE).exec(path);
    if (!search && !match) return false;
    const query = readRawQuery(q < 0 ? '' : req.url.slice(q + 1));
    const instanceKeys = v1 ? V1_INSTANCE_KEYS : INSTANCE_KEYS;
    if (match) for (const key in query) if (!instanceKeys.has(key)) return false;
    // JSON only: the browseable API's pages (and XML, YAML) are the application's.
    if (
      query.format !== undefined
        ? query.format !== 'json'
        : negotiate(req.headers.accept ?? '') !== 'json' || wantsHtml(undefined, req.headers.accept)
    ) {
      return false;
    }
    // The same origin the application would build (it never reflects a Host it does not know).
    const client = clientFacts(req, options.trustedHops ?? 0);
    const secure = client.protocol === 'https';
    const origin = linkOrigin(
      options,
      client.protocol,
      client.host,
      req.socket.localAddress,
      req.socket.localPort,
    );
    const body = match
      ? options.renderedSounds.get(
          v1
            ? v1SoundInstanceKey(Number(match[1]), origin)
            : soundInstanceKey(Number(match[1]), origin, query),
        )
      : await options.searchPages?.peek({ origin, path, rawQuery: query });
    // A cold version 2 instance is read here too (in the profile Koa's per-request work was about
    // a fifth of such a request's cost), when its id and parameters are ones the route takes;
    // anything the route would refuse stays the application's to answer.
    const cold = body || v1 ? undefined : coldAnswer(options, path, match, origin, req.url, query);
    if (!body && !cold) return false;
    let principal: Principal | null;
    try {
      principal = await authenticate(options.strategies, {
        authorization: req.headers.authorization || undefined,
        // Version 1's `api_key` is the same key as `token` (the application does the same).
        query:
          v1 && query.api_key !== undefined && query.token === undefined
            ? { ...query, token: query.api_key }
            : query,
        secure,
      });
    } catch {
      return false; // the application answers the 401
    }
    if (!principal || (principal.strategy === 'oauth2' && options.httpsOnly && !secure)) return false;
    const started = performance.now();
    // Counted here and only here: from now on this request is not handed to the application.
    const verdict = options.rateLimiter && (await options.rateLimiter.check(principal, 'standard'));
    let status = verdict && !verdict.allowed ? 429 : 200;
    let bytes: Buffer;
    let retryAfter: string | undefined;
    let unavailable: UnavailableCause | undefined;
    if (status === 429) bytes = Buffer.from(JSON.stringify(throttledBody(verdict?.detail, v1)));
    else if (body) bytes = body.bytes;
    else {
      try {
        const answer = await (cold as () => Promise<unknown>)();
        bytes = answer instanceof RenderedJson ? answer.bytes : Buffer.from(JSON.stringify(answer));
      } catch (err) {
        // As the application's error handler answers (middleware/errors.ts): the read found no
        // such sound (404), a field selection the serializer refuses (400), the database out of
        // reach (503 with Retry-After).
        let detail: string;
        if (err instanceof EarshotError) {
          status = err.status;
          detail = err.message;
        } else if (isCatalogueUnavailable(err)) {
          status = 503;
          detail = UNAVAILABLE_DETAIL;
          retryAfter = String(UNAVAILABLE_RETRY_AFTER_S);
        } else {
          options.logger.error({ err, url: req.url }, 'unhandled error');
          status = 500;
          detail = 'Internal server error.';
        }
        bytes = Buffer.from(JSON.stringify({ detail }));
        if (status === 503) unavailable = unavailableCause(err);
      }
    }
    const requestId = requestIdFrom(header(req.headers['x-request-id']));
    // As the application's logUnavailable: every 503 once, at warn, with its cause.
    if (unavailable) {
      options.logger.warn(
        { reqId: requestId, method: 'GET', url: req.url, cause: unavailable },
        UNAVAILABLE_LOG_MESSAGE,
      );
    }
    res.writeHead(status, {
      // Written out, not spread from SECURITY_HEADERS: the spread made this object slow to build
      // and to write (7 → 20 µs per request in an in-process measurement).
      'X-Content-Type-Options': CONTENT_TYPE_OPTIONS,
      'Referrer-Policy': REFERRER_POLICY,
      'X-Frame-Options': FRAME_OPTIONS,
      'Content-Security-Policy': API_CSP,
      'X-Request-Id': requestId,
      'Access-Control-Allow-Origin': '*',
      'Content-Type': 'application/json; charset=utf-8',
      Vary: 'Accept',
      'Content-Length': bytes.length,
      ...(retryAfter ? { 'Retry-After': retryAfter } : {}),
      ...verdict?.headers,
    });
    res.end(bytes);
    if (options.logger.isLevelEnabled('info')) {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      options.logger.info({ reqId: requestId, method: 'GET', url: req.url, status, ms }, 'request');
    }
    return true;
  };
}

/**
 * Reads and renders a cold sound instance or page of similar sounds, or undefined when the
 * application must answer: no renderer, a NUL byte (refused there), an id or a parameter the
 * route's schemas refuse (answered there with the route's own wording).
 */
function coldAnswer(
  options: HotPathOptions,
  path: string,
  instance: RegExpExecArray | null,
  origin: string,
  url: string,
  rawQuery: Record<string, string>,
): (() => Promise<unknown>) | undefined {
  if (hasNul(url)) return undefined;
  const similar = instance ? null : SIMILAR_SOUNDS.exec(path);
  const id = idParam.safeParse((instance ?? similar)?.[1]);
  if (!id.success) return undefined;
  const { renderSound, renderSimilar } = options;
  if (instance && renderSound) {
    const query = soundInstanceQuery.safeParse(rawQuery);
    return query.success ? () => renderSound(id.data, origin, query.data) : undefined;
  }
  if (similar && renderSimilar) {
    const query = similarQuery.safeParse(rawQuery);
    if (!query.success) return undefined;
    return () => renderSimilar(id.data, { query: query.data, rawQuery, origin, path });
  }
  return undefined;
}

/** The 429 body, in version 1's error form on its paths (as `legacyErrors` answers). */
function throttledBody(detail: string | undefined, v1: boolean) {
  if (!v1) return { detail };
  return { detail, error: true, type: 'Throttled', status_code: 429, explanation: detail };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
