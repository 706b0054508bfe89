import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@earshot/common';
import type { z } from 'zod';
import type { RenderedCache } from './caches/rendered-json.ts';
import type { SearchPageCache } from './caches/search-pages.ts';
import { type AdmissionOptions, type Admitted, admit, type Gate } from './framework/http/admission.ts';
import { clientFacts } from './framework/http/forwarded.ts';
import { linkOrigin } from './framework/http/origin.ts';
import { idParam } from './framework/http/params.ts';
import { readRawQuery } from './framework/http/raw-query.ts';
import { negotiate, wantsHtml } from './framework/http/render.ts';
import { RenderedJson } from './framework/http/rendered-json.ts';
import { underRequestSignal } from './framework/http/request-signal.ts';
import { versionInScope } from './framework/http/request-version.ts';
import { soundInstanceKey, v1SoundInstanceKey } from './framework/http/sound-instance-key.ts';
import { type ErrorAnswer, errorAnswer } from './framework/middleware/errors.ts';
import { hasNul } from './framework/middleware/nul-bytes.ts';
import { requestIdFrom } from './framework/middleware/request-context.ts';
import { API_CSP, answerHeaders } from './framework/middleware/security-headers.ts';
import {
  UNAVAILABLE_LOG_MESSAGE,
  type UnavailableCause,
  unavailableCause,
} from './framework/middleware/unavailable-log.ts';
import { Throttled } from './framework/rate-limits/throttled.ts';
import { legacyErrorBody } from './v1/legacy-errors.ts';
import { similarQuery, soundInstanceQuery, textSearchQuery } from './v2/routes/query-schemas.ts';
import type { TextSearchInput } from './v2/routes/search.ts';
import type { SimilarInput } from './v2/routes/sounds.ts';

/**
 * The hot path sits beside app.ts, not in framework/: it knows version 2's and version 1's paths,
 * the routes' query schemas and the caches. What it shares with the application's path is below
 * it: admission (http/admission.ts), the error mapping (middleware/errors.ts) and the headers
 * (middleware/security-headers.ts).
 */
export interface HotPathOptions extends AdmissionOptions {
  /** TRUST_PROXY: the scheme and host are read as the application reads them (http/forwarded.ts). */
  trustedHops?: number;
  renderedSounds: RenderedCache;
  /** Rendered search pages (kept until the catalogue changes); absent = no search hot path. */
  searchPages?: SearchPageCache;
  publicUrl: string | undefined;
  /** Host names links may be built from when publicUrl is unset (http/origin.ts). */
  allowedHosts?: readonly string[];
  logger: Logger;
  /**
   * Reads and renders a version 2 sound instance that is not in `renderedSounds` (the route's own
   * function); absent = such requests go to the application. Its errors are answered here.
   */
  renderSound?: (id: number, origin: string, query: SoundInstanceQuery) => Promise<RenderedJson>;
  /** The same for a page of similar sounds not in `searchPages` (the route's own function). */
  renderSimilar?: (id: number, input: SimilarInput) => Promise<unknown>;
  /** The same for a page of text search not in `searchPages` (the route's own function). */
  renderTextSearch?: (input: TextSearchInput) => Promise<unknown>;
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
/** The text search paths, whose pages the hot path also computes when they are not kept. */
const TEXT_SEARCH_PATHS = new Set(['/apiv2/search/', '/apiv2/search/text/']);

/**
 * Serves a sound instance whose JSON was rendered moments ago (or a search page rendered since the
 * catalogue last changed) straight from node:http, without
 * Koa and the router: in the profile their per-request work was most of the route's cost once the
 * body itself came from the cache (the route ran at ~21% of a bare node:http server). Only the
 * plainest case is taken: GET, JSON by format and Accept, a credential the strategies accept, a
 * cache entry — or, for a version 2 sound instance, page of similar sounds or page of text search,
 * the route's own read and render (`renderSound`, `renderSimilar`, `renderTextSearch`), run after
 * the same authentication and rate limit, under the request's signal as the application runs it.
 * Everything else (another search's miss, a bad or missing key, XML/YAML, parameters the route
 * refuses, HEAD) falls through to the application, which answers exactly as before and fills the
 * cache. The response carries the same headers the application sends (answerHeaders).
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
    const kept = match ? undefined : await options.searchPages?.peek({ origin, path, rawQuery: query });
    const body = match
      ? options.renderedSounds.get(
          v1
            ? v1SoundInstanceKey(Number(match[1]), origin)
            : soundInstanceKey(Number(match[1]), origin, query),
        )
      : kept?.page;
    // A cold version 2 instance is read here too (in the profile Koa's per-request work was about
    // a fifth of such a request's cost), when its id and parameters are ones the route takes;
    // anything the route would refuse stays the application's to answer.
    const cold = body || v1 ? undefined : coldAnswer(options, path, match, origin, req.url, query);
    if (!body && !cold) return false;
    // Admitted as the application admits the route (http/admission.ts). Once counted, the request
    // is answered here, a 429 included, and never handed to the application (which would count it
    // again); every refusal before the count is the application's to answer, with its own wording.
    let admitted: Admitted | undefined;
    let answer: ErrorAnswer | undefined;
    try {
      admitted = await admit(options, authRequest(req, query, v1, secure), INSTANCE_GATE);
    } catch (err) {
      if (!(err instanceof Throttled)) return false;
      answer = errorAnswer(err, () => {});
    }
    const started = performance.now();
    let bytes = answer ? undefined : body?.bytes;
    let unavailable: UnavailableCause | undefined;
    if (!answer && !bytes) {
      try {
        // Under the version the page was looked up at: the caches below it need not wait for another.
        const version = kept?.version;
        const compute = cold as () => Promise<unknown>;
        const value = await underRequestSignal(res, () =>
          version === undefined ? compute() : versionInScope.run(version, compute),
        );
        bytes = value instanceof RenderedJson ? value.bytes : Buffer.from(JSON.stringify(value));
      } catch (err) {
        // As the application's error handler answers (middleware/errors.ts): the read found no
        // such sound (404), a field selection the serializer refuses (400), the database out of
        // reach (503 with Retry-After).
        answer = errorAnswer(err, (unexpected) =>
          options.logger.error({ err: unexpected, url: req.url }, 'unhandled error'),
        );
        if (answer.status === 503) unavailable = unavailableCause(err);
      }
    }
    const status = answer?.status ?? 200;
    const payload = answer
      ? Buffer.from(
          JSON.stringify(v1 ? legacyErrorBody(answer.status, answer.detail) : { detail: answer.detail }),
        )
      : (bytes as Buffer);
    const requestId = requestIdFrom(header(req.headers['x-request-id']));
    // As the application's logUnavailable: every 503 once, at warn, with its cause.
    if (unavailable) {
      options.logger.warn(
        { reqId: requestId, method: 'GET', url: req.url, cause: unavailable },
        UNAVAILABLE_LOG_MESSAGE,
      );
    }
    // The refusal's own headers (a 429's verdict, a 503's Retry-After) come with the answer.
    const headers = answerHeaders(API_CSP, requestId, admitted?.rateLimitHeaders);
    headers['Content-Type'] = 'application/json; charset=utf-8';
    headers.Vary = 'Accept';
    headers['Content-Length'] = payload.length;
    if (answer) for (const name in answer.headers) headers[name] = answer.headers[name];
    res.writeHead(status, headers);
    res.end(payload);
    if (options.logger.isLevelEnabled('info')) {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      options.logger.info({ reqId: requestId, method: 'GET', url: req.url, status, ms }, 'request');
    }
    return true;
  };
}

/** What the hot path's resources ask: a key or token with the read scope, at the standard limits. */
const INSTANCE_GATE: Gate = { auth: 'read', scope: 'read', rateLimit: 'standard' };

/** The request's credential as the strategies read it; never a web session (its pages are the application's). */
function authRequest(req: IncomingMessage, query: Record<string, string>, v1: boolean, secure: boolean) {
  return {
    authorization: req.headers.authorization || undefined,
    // Version 1's `api_key` is the same key as `token` (the application does the same).
    query:
      v1 && query.api_key !== undefined && query.token === undefined
        ? { ...query, token: query.api_key }
        : query,
    secure,
  };
}

/**
 * Reads and renders a cold sound instance, page of similar sounds or page of text search, or
 * undefined when the application must answer: no renderer, a NUL byte (refused there), an id or a
 * parameter the route's schemas refuse (answered there with the route's own wording).
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
  const { renderSound, renderSimilar, renderTextSearch } = options;
  if (!instance && TEXT_SEARCH_PATHS.has(path)) {
    if (!renderTextSearch) return undefined;
    const query = textSearchQuery.safeParse(rawQuery);
    if (!query.success) return undefined;
    return () => renderTextSearch({ query: query.data, rawQuery, origin, path });
  }
  const similar = instance ? null : SIMILAR_SOUNDS.exec(path);
  const id = idParam.safeParse((instance ?? similar)?.[1]);
  if (!id.success) return undefined;
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

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
