import {
  type EncodedBody,
  encode,
  encodeFields,
  multipartBody,
  type Part,
  uniqueAudio,
  urlEncoded,
} from './bodies.ts';
import type { FuzzRequest } from './generate.ts';
import { Rng, requestSeed } from './rng.ts';
import type { FuzzTarget } from './targets.ts';
import { HOSTILE_NUMBERS, HOSTILE_TEXT, pathValueFor, type ValidValues, valueFor } from './values.ts';

/** A web session as a browser holds it: the cookie's value and the CSRF token of its forms. */
export interface WebSessionKeys {
  cookie: string;
  csrf: string;
}

/** A small audio file of the fixtures, sent as an upload. */
export interface AudioSample {
  name: string;
  data: Buffer;
}

/**
 * What the write suite's requests are made of: real credentials of every kind, a signed-in
 * moderator's session with its CSRF token, files waiting for a description, real audio. The
 * `fresh` makers give a request what it uses up (an authorization code, a refresh token, a session
 * it signs out or replaces), so no request spoils the keys the others need.
 */
export interface WriteWorld {
  valid: ValidValues;
  /** Sounds of the writer's user (alice): edits of them reach the change itself. */
  ownSoundIds: number[];
  /** Sounds waiting for a moderator when the run starts. */
  pendingSoundIds: number[];
  /** An API key of level `unlimited` and one of level `standard`. */
  apiKey: string;
  standardApiKey: string;
  /** OAuth2 access tokens: `read write` unlimited (the writer), `read write` standard, `read` only. */
  tokens: { writer: string; standard: string; readOnly: string };
  /** The application the OAuth2 requests are about. */
  client: { id: string; secret: string; redirectUri: string };
  /** The writer's files waiting for a description when the run starts. */
  pendingFiles: string[];
  /** The signed-in moderator's session, its credential's client id, its files waiting for a description. */
  web: {
    session: WebSessionKeys;
    username: string;
    password: string;
    clientId: string;
    pendingFiles: string[];
  };
  audio: AudioSample[];
  /** Version 1's routes, read from its OpenAPI document. */
  v1Targets: FuzzTarget[];
  fresh: {
    code: (rng: Rng) => Promise<string>;
    refreshToken: () => Promise<string>;
    visitor: () => Promise<WebSessionKeys>;
    signedIn: () => Promise<WebSessionKeys>;
  };
}

/** A request before its common parts are added. */
interface Draft {
  method: string;
  /** The route as a template, for the report. */
  route: string;
  path: string;
  query?: [string, string][];
  headers?: Record<string, string>;
  body?: EncodedBody;
  kind: 'api' | 'page';
}

type Maker = (rng: Rng, index: number, w: WriteWorld) => Draft | Promise<Draft>;

const LONG = (n: number) => 'x'.repeat(n);

/** Anything at all, for a field: text that broke parsers elsewhere, integer edges. */
function hostile(rng: Rng): string {
  return rng.chance(0.6) ? rng.pick(HOSTILE_TEXT) : rng.pick(HOSTILE_NUMBERS);
}

/** A field's values: `ok` ones the handler accepts, and (optionally) `bad` ones it must refuse. */
type Pool = readonly string[] | { ok: readonly string[]; bad: readonly string[] };

/**
 * Mostly a value from the field's own pool (so the handler runs), sometimes anything. `clean`
 * takes only acceptable values, so that whole forms pass and the success paths run too.
 */
function value(rng: Rng, pool: Pool, clean = false): string {
  if (Array.isArray(pool)) return rng.chance(0.8) ? rng.pick(pool) : hostile(rng);
  const { ok, bad } = pool as { ok: readonly string[]; bad: readonly string[] };
  if (clean) return rng.pick(ok);
  const roll = rng.next();
  return roll < 0.6 ? rng.pick(ok) : roll < 0.85 ? rng.pick(bad) : hostile(rng);
}

/** An id: mostly one that exists, otherwise an integer edge (2^31, 2^63, -1, …) or text. */
function id(rng: Rng, ids: readonly number[]): string {
  if (rng.chance(0.8)) return String(rng.pick(ids));
  return encode(rng.chance(0.7) ? rng.pick(HOSTILE_NUMBERS) : rng.pick(HOSTILE_TEXT));
}

/**
 * The fields of a form from their pools: `required` ones nearly always, the others now and then;
 * a third of the forms are clean (every value acceptable, or all but one), the others mix in wrong
 * values, a field sometimes twice, and sometimes one nobody asked for.
 */
function fields(rng: Rng, spec: Record<string, Pool>, required: string[] = []): [string, string][] {
  const clean = rng.chance(0.35);
  const out: [string, string][] = [];
  for (const [name, pool] of Object.entries(spec)) {
    if (required.includes(name) ? !clean && rng.chance(0.04) : !rng.chance(0.6)) continue;
    out.push([name, value(rng, pool, clean)]);
  }
  // One wrong value in an otherwise valid form: the case where it reaches the database.
  if (clean && out.length > 0 && rng.chance(0.2)) rng.pick(out)[1] = hostile(rng);
  if (clean) return out;
  if (out.length > 0 && rng.chance(0.04)) out.push([rng.pick(out)[0], hostile(rng)]);
  if (rng.chance(0.04))
    out.push([rng.pick(['__proto__', 'constructor', 'x', 'token', 'format']), hostile(rng)]);
  return out;
}

const SOCIAL: Record<'rate' | 'comment' | 'bookmark', Record<string, Pool>> = {
  rate: { rating: { ok: ['0', '1', '2', '3', '4', '5'], bad: ['6', '3.5', '-1', '10', ' 4', 'five', ''] } },
  comment: {
    comment: {
      ok: [
        'Great sound!',
        'Used it in a track 👍',
        'Line one\nline two',
        '<b>bold</b> & <script>x</script>',
        LONG(4000),
        'é'.repeat(2000),
      ],
      bad: [LONG(4001), ' ', ''],
    },
  },
  bookmark: {
    name: { ok: ['Favourite', 'kick', LONG(128), 'ünïcödé', '  spaced  '], bad: [LONG(129), ''] },
    category: { ok: ['drums', 'Drums', 'field recordings', LONG(128), 'ünï', '0'], bad: [LONG(129), ''] },
  },
};

/** Upload, describe and edit's fields (API.md "Upload parameters"), valid and wrong. */
const DESCRIPTION: Record<string, Pool> = {
  name: { ok: ['Morning tone', 'fuzz sound', LONG(512), 'ünïcödé name'], bad: [LONG(513), ''] },
  bst_category: {
    ok: ['fx-el', 'fx-a', 'is-p', 'm-sp', 'ss-n'],
    bad: ['FX-EL', 'fx', 'xx-yy', 'fx-el,fx-a', ''],
  },
  tags: {
    ok: [
      'sine test-tone calm',
      'one two three four five',
      'drum kick 808',
      'tag-with-dashes other third',
      'ünï cödé tägs',
    ],
    bad: [
      'a b',
      `${LONG(10_000)} b c`,
      Array.from({ length: 200 }, (_, i) => `t${i}`).join(' '),
      ',,, ;;; ...',
      '',
    ],
  },
  description: {
    ok: ['A pure tone.', 'Recorded at home.\nTwo lines.', LONG(20_000), '<a href="x">link</a>'],
    bad: [LONG(100_001), ''],
  },
  license: {
    ok: ['Attribution', 'Attribution NonCommercial', 'Creative Commons 0'],
    bad: ['attribution', 'CC0', 'https://creativecommons.org/licenses/by/4.0/', 'Sampling+', ''],
  },
  pack: { ok: ['Fuzz pack', 'Drums', 'ünï pack', '../x'], bad: [LONG(300), ''] },
  geotag: {
    ok: ['41.3851,2.1734,14', '0,0,11', '90,180,18', '-90,-180,11', '41.38,2.17,32767'],
    bad: [
      ' 41.38 , 2.17 , 14 ',
      '91,0,14',
      '0,181,14',
      '41.38,2.17,10',
      '41.38,2.17,32768',
      '41.38,2.17,99999999999',
      '41.38,2.17,-1',
      '41.38,2.17,14.5',
      '1e999,0,14',
      'NaN,NaN,14',
      'a,b,c',
      '41.38,2.17',
      '41.38,2.17,14,5',
      '',
    ],
  },
};

const FILE_NAMES = (index: number, ext: string): string[] => [
  `fuzz-${index}.${ext}`,
  `fuzz-${index}.${ext}`,
  `fuzz-${index}.${ext}`,
  `ñandú ${index}.${ext}`,
  `${LONG(300)}.${ext}`,
  `../../etc/fuzz-${index}.${ext}`,
  `fuzz-${index}`,
  `.${ext}`,
  `fuzz-${index}.txt`,
  `FUZZ-${index}.${ext.toUpperCase()}`,
  `a"b ${index}.${ext}`,
  `a\u0000b${index}.${ext}`,
  '',
];

/** The credentials of an OAuth2-only write route: mostly the unlimited writer, some standard, some wrong. */
function bearer(rng: Rng, w: WriteWorld): Record<string, string> {
  const roll = rng.next();
  if (roll < 0.72) return { authorization: `Bearer ${w.tokens.writer}` };
  if (roll < 0.84) return { authorization: `Bearer ${w.tokens.standard}` };
  if (roll < 0.9) return { authorization: `Bearer ${w.tokens.readOnly}` };
  if (roll < 0.94) return { authorization: `Token ${w.apiKey}` };
  return {
    authorization: rng.pick([
      'Bearer ',
      `Bearer ${w.tokens.writer}x`,
      `Bearer ${w.tokens.writer.slice(1)}`,
      'Bearer \u00ff\u00fe',
      `Bearer ${LONG(5000)}`,
      `Basic ${Buffer.from(`${w.client.id}:${w.client.secret}`).toString('base64')}`,
    ]),
  };
}

/** Text parameters of a POST route that also reads them from the query string: mostly a body. */
function params(rng: Rng, f: [string, string][]): Pick<Draft, 'query' | 'body'> {
  if (rng.chance(0.12)) return { query: f };
  if (rng.chance(0.03)) return {};
  return { body: encodeFields(rng, f) };
}

function audioParts(rng: Rng, index: number, w: WriteWorld, field = 'audiofile'): Part[] {
  const sample = rng.pick(w.audio);
  const ext = sample.name.slice(sample.name.lastIndexOf('.') + 1);
  const filename = rng.pick(FILE_NAMES(index, ext));
  return [
    {
      name: rng.chance(0.97) ? field : rng.pick(['audio_file', 'file', '']),
      filename,
      value: uniqueAudio(sample.data, sample.name, index, rng.chance(0.08)),
      contentType: rng.pick(['application/octet-stream', 'audio/wav', 'audio/flac', 'text/plain']),
    },
  ];
}

function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

const api = (method: string, route: string, path: string, rest: Partial<Draft> = {}): Draft => ({
  method,
  route,
  path,
  kind: 'api',
  ...rest,
});

/** A page request in a session: its cookie, and on a POST its CSRF token (mostly the right one). */
function page(
  method: string,
  route: string,
  path: string,
  session: WebSessionKeys | undefined,
  rng: Rng,
  form?: [string, string][],
  rest: Partial<Draft> = {},
): Draft {
  const headers: Record<string, string> = { ...(rest.headers ?? {}) };
  if (session) headers.cookie = `earshot_session=${session.cookie}`;
  let body = rest.body;
  if (method === 'POST' && form) {
    const token = csrfToken(rng, session);
    const fieldsWithToken: [string, string][] =
      token === undefined ? form : rng.chance(0.1) ? form : [['csrf_token', token], ...form];
    if (token !== undefined && !fieldsWithToken.some(([k]) => k === 'csrf_token'))
      headers['x-csrf-token'] = token;
    body = encodeFields(rng, fieldsWithToken, [
      'form',
      'form',
      'form',
      'form',
      'form',
      'form',
      'multipart',
      'json',
    ]);
  }
  return { method, route, path, kind: 'page', ...rest, headers, body };
}

function csrfToken(rng: Rng, session: WebSessionKeys | undefined): string | undefined {
  const roll = rng.next();
  if (roll < 0.9) return session?.csrf ?? '';
  if (roll < 0.95) return undefined;
  return rng.pick(['', 'x', `${session?.csrf ?? ''}x`, LONG(5000), '\u0000']);
}

const AUTHORIZE_PARAMS = (rng: Rng, w: WriteWorld): [string, string][] =>
  fields(
    rng,
    {
      client_id: [w.client.id, w.client.id, w.client.id, 'unknown-client'],
      response_type: ['code', 'code', 'code', 'token', ''],
      scope: ['read', 'write', 'read write', 'write read', 'read  write', 'admin', 'read,write', ''],
      state: ['xyz', '', LONG(2000), 'a b&c=d'],
      redirect_uri: [
        w.client.redirectUri,
        `${w.client.redirectUri}/x`,
        'https://evil.example/',
        '//evil',
        '',
      ],
      code_challenge: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'short', LONG(200)],
      code_challenge_method: ['S256', 'plain', 'md5'],
    },
    ['client_id', 'response_type'],
  );

/** Weighted families: version 2's writes, uploads, OAuth2, the pages behind a session and CSRF, version 1. */
const FAMILIES: { name: string; weight: number; make: Maker }[] = [
  {
    name: 'v2 rate, comment, bookmark',
    weight: 15,
    make: (rng, _i, w) => {
      const action = rng.pick(['rate', 'comment', 'bookmark'] as const);
      const spec = SOCIAL[action];
      const f = fields(rng, spec, action === 'bookmark' ? [] : Object.keys(spec));
      return api(
        'POST',
        `/apiv2/sounds/{sound_id}/${action}/`,
        `/apiv2/sounds/${id(rng, w.valid.soundIds)}/${action}/`,
        { headers: bearer(rng, w), ...params(rng, f) },
      );
    },
  },
  {
    name: 'v2 bookmark categories',
    weight: 5,
    make: (rng, _i, w) => {
      const query: [string, string][] = [];
      for (const name of ['page', 'page_size', 'fields', 'format'])
        if (rng.chance(0.3))
          query.push([name, decodeURIComponent(safeRaw(valueFor(name, rng, w.valid).raw))]);
      if (rng.chance(0.4))
        return api('GET', '/apiv2/me/bookmark_categories/', '/apiv2/me/bookmark_categories/', {
          headers: bearer(rng, w),
          query,
        });
      const category = rng.chance(0.8) ? String(rng.int(30)) : id(rng, [0]);
      return api(
        'GET',
        '/apiv2/me/bookmark_categories/{bookmark_category_id}/sounds/',
        `/apiv2/me/bookmark_categories/${category}/sounds/`,
        { headers: bearer(rng, w), query },
      );
    },
  },
  {
    name: 'v2 upload',
    weight: 11,
    make: (rng, index, w) => {
      const parts: Part[] = rng.chance(0.95) ? audioParts(rng, index, w) : [];
      if (rng.chance(0.03)) parts.push(...audioParts(rng, index + 1_000_000, w));
      const described = rng.next();
      const required = described < 0.5 ? ['bst_category', 'tags', 'description', 'license'] : [];
      if (described < 0.75)
        for (const [name, v] of fields(rng, DESCRIPTION, required)) parts.push({ name, value: v });
      return api('POST', '/apiv2/sounds/upload/', '/apiv2/sounds/upload/', {
        headers: bearer(rng, w),
        body: rng.chance(0.97)
          ? multipartBody(rng, shuffle(rng, parts))
          : encodeFields(rng, fields(rng, DESCRIPTION)),
      });
    },
  },
  {
    name: 'v2 describe',
    weight: 7,
    make: (rng, index, w) => {
      const roll = rng.next();
      const file =
        roll < 0.55
          ? rng.pick(w.pendingFiles)
          : roll < 0.85
            ? `fuzz-${rng.int(index + 1)}.${rng.pick(['wav', 'flac', 'aiff', 'ogg', 'mp3'])}`
            : hostile(rng);
      const f = fields(
        rng,
        DESCRIPTION,
        rng.chance(0.6) ? ['bst_category', 'tags', 'description', 'license'] : [],
      );
      if (rng.chance(0.96)) f.unshift(['upload_filename', file]);
      return api('POST', '/apiv2/sounds/describe/', '/apiv2/sounds/describe/', {
        headers: bearer(rng, w),
        ...params(rng, f),
      });
    },
  },
  {
    name: 'v2 edit',
    weight: 9,
    make: (rng, _i, w) => {
      const sound = rng.chance(0.75) ? String(rng.pick(w.ownSoundIds)) : id(rng, w.valid.soundIds);
      return api('POST', '/apiv2/sounds/{sound_id}/edit/', `/apiv2/sounds/${sound}/edit/`, {
        headers: bearer(rng, w),
        ...params(rng, fields(rng, DESCRIPTION)),
      });
    },
  },
  {
    name: 'v2 pending uploads',
    weight: 3,
    make: (rng, _i, w) =>
      api('GET', '/apiv2/sounds/pending_uploads/', '/apiv2/sounds/pending_uploads/', {
        headers: bearer(rng, w),
        query: rng.chance(0.3) ? [['format', rng.pick(['json', 'xml', 'yaml', 'api', 'junk'])]] : [],
      }),
  },
  {
    name: 'OAuth2 token endpoint',
    weight: 10,
    make: async (rng, _i, w) => {
      const roll = rng.next();
      const grant =
        roll < 0.5
          ? 'authorization_code'
          : roll < 0.8
            ? 'refresh_token'
            : rng.pick([
                'client_credentials',
                'password',
                'implicit',
                '',
                'AUTHORIZATION_CODE',
                hostile(rng),
              ]);
      const f: [string, string][] = rng.chance(0.97) ? [['grant_type', grant]] : [];
      const auth = rng.next();
      const headers: Record<string, string> = {};
      const secret = rng.chance(0.88)
        ? w.client.secret
        : rng.pick(['wrong', '', `${w.client.secret}x`, hostile(rng)]);
      if (auth < 0.8) {
        f.push(['client_id', rng.chance(0.9) ? w.client.id : hostile(rng)], ['client_secret', secret]);
      } else if (auth < 0.9) {
        const basic = `${encode(w.client.id)}:${encode(secret)}`;
        headers.authorization = `Basic ${Buffer.from(rng.chance(0.9) ? basic : hostile(rng)).toString('base64')}`;
      } else if (auth < 0.95) {
        f.push(['client_id', w.client.id]);
      }
      if (grant === 'authorization_code' || rng.chance(0.05)) {
        const code = rng.chance(0.75)
          ? await w.fresh.code(rng)
          : rng.pick(['', 'x', LONG(300), hostile(rng)]);
        if (rng.chance(0.97)) f.push(['code', code]);
      }
      if (grant === 'refresh_token' || rng.chance(0.05)) {
        const token = rng.chance(0.7)
          ? await w.fresh.refreshToken()
          : rng.pick(['', 'x', LONG(300), hostile(rng)]);
        if (rng.chance(0.97)) f.push(['refresh_token', token]);
      }
      if (rng.chance(0.25))
        f.push(['redirect_uri', rng.pick([w.client.redirectUri, 'https://evil.example/', '', hostile(rng)])]);
      if (rng.chance(0.1))
        f.push(['code_verifier', rng.pick(['x'.repeat(43), 'short', LONG(200), hostile(rng)])]);
      if (rng.chance(0.1))
        f.push(['scope', rng.pick(['read', 'write', 'read write', 'admin', hostile(rng)])]);
      if (rng.chance(0.04) && f.length > 0) f.push([rng.pick(f)[0], hostile(rng)]);
      const route = '/apiv2/oauth2/access_token/';
      return api('POST', route, route, {
        headers,
        ...(rng.chance(0.06) ? { query: f } : { body: encodeFields(rng, f) }),
      });
    },
  },
  {
    name: 'OAuth2 pages',
    weight: 9,
    make: async (rng, _i, w) => {
      const roll = rng.next();
      const authorize = '/apiv2/oauth2/authorize/';
      if (roll < 0.4) {
        const session = rng.chance(0.85) ? w.web.session : undefined;
        return page('GET', authorize, authorize, session, rng, undefined, {
          query: AUTHORIZE_PARAMS(rng, w),
        });
      }
      if (roll < 0.68) {
        const form = AUTHORIZE_PARAMS(rng, w);
        if (rng.chance(0.65)) form.push(['allow', rng.pick(['Authorize', '', 'x'])]);
        else if (rng.chance(0.5)) form.push(['deny', 'Deny']);
        return page('POST', authorize, authorize, w.web.session, rng, form);
      }
      if (roll < 0.76) {
        const path = '/apiv2/oauth2/logout_and_authorize/';
        const session = await w.fresh.signedIn();
        if (rng.chance(0.6))
          return page('GET', path, path, session, rng, undefined, { query: AUTHORIZE_PARAMS(rng, w) });
        return page('POST', path, path, session, rng, [...AUTHORIZE_PARAMS(rng, w), ['allow', 'Authorize']]);
      }
      if (roll < 0.84) {
        const path = '/home/app_permissions/permission_granted/';
        const query = fields(rng, {
          code: ['abc', LONG(3000), ''],
          state: ['xyz', LONG(3000)],
          error: ['access_denied'],
        });
        return page('GET', path, path, rng.chance(0.5) ? w.web.session : undefined, rng, undefined, {
          query,
        });
      }
      if (roll < 0.92)
        return page('GET', '/home/app_permissions/', '/home/app_permissions/', w.web.session, rng);
      const client = rng.chance(0.6) ? w.client.id : encode(hostile(rng));
      return page(
        'POST',
        '/home/app_permissions/revoke_permission/{clientId}/',
        `/home/app_permissions/revoke_permission/${client}/`,
        w.web.session,
        rng,
        [],
      );
    },
  },
  {
    name: 'web sign-in, sign-up, sign-out',
    weight: 6,
    make: async (rng, index, w) => {
      const roll = rng.next();
      const next = [
        '/upload/',
        '/apiv2/apply/',
        '//evil.example/',
        '/.//evil.example/',
        'https://evil.example/',
        '/\\evil',
      ];
      if (roll < 0.4) {
        const login = rng.pick([
          w.web.username,
          `${w.web.username}@example.org`,
          'alice',
          'nobody',
          hostile(rng),
        ]);
        const password = rng.chance(0.4) ? w.web.password : value(rng, ['wrong password', '', LONG(5000)]);
        const form: [string, string][] = [
          ['login', login],
          ['password', password],
        ];
        if (rng.chance(0.4)) form.push(['next', value(rng, next)]);
        return page('POST', '/apiv2/login/', '/apiv2/login/', await w.fresh.visitor(), rng, form);
      }
      if (roll < 0.5) {
        const query: [string, string][] = rng.chance(0.6) ? [['next', value(rng, next)]] : [];
        return page(
          'GET',
          '/apiv2/login/',
          '/apiv2/login/',
          rng.chance(0.5) ? w.web.session : undefined,
          rng,
          undefined,
          {
            query,
          },
        );
      }
      if (roll < 0.8) {
        const form = fields(
          rng,
          {
            username: [`fz${index}`, `fz_${index}.x@y+z-`, w.web.username, 'a', LONG(151), `ü${index}`, ''],
            email: [`fz${index}@example.org`, `${w.web.username}@example.org`, 'not-an-email', ''],
            password: ['correct horse battery', 'short', '', LONG(5000)],
          },
          ['username', 'email', 'password'],
        );
        return page('POST', '/apiv2/signup/', '/apiv2/signup/', await w.fresh.visitor(), rng, form);
      }
      if (roll < 0.9)
        return page('POST', '/apiv2/logout/', '/apiv2/logout/', await w.fresh.signedIn(), rng, []);
      return page('GET', '/apiv2/logout/', '/apiv2/logout/', await w.fresh.signedIn(), rng, undefined, {
        headers: rng.chance(0.5) ? { 'sec-fetch-site': rng.pick(['cross-site', 'same-origin', 'none']) } : {},
      });
    },
  },
  {
    name: 'web sound forms',
    weight: 8,
    make: (rng, _i, w) => {
      const user = rng.chance(0.85) ? rng.pick(['alice', 'bob']) : encode(hostile(rng));
      const sound = id(rng, w.valid.soundIds);
      const base = `/people/${user}/sounds/${sound}`;
      const roll = rng.next();
      if (roll < 0.15)
        return page(
          'GET',
          '/people/{username}/sounds/{id}/download/',
          `${base}/download/`,
          w.web.session,
          rng,
          undefined,
          {
            headers: rng.chance(0.3)
              ? { range: rng.pick(['bytes=0-10', 'bytes=5-', 'bytes=-1', 'bytes=9-1']) }
              : {},
          },
        );
      if (roll < 0.25) return page('GET', '/people/{username}/sounds/{id}/', `${base}/`, w.web.session, rng);
      const action = rng.pick(['rate', 'comment', 'bookmark'] as const);
      const spec = SOCIAL[action];
      return page(
        'POST',
        `/people/{username}/sounds/{id}/${action}/`,
        `${base}/${action}/`,
        w.web.session,
        rng,
        fields(rng, spec, Object.keys(spec)),
      );
    },
  },
  {
    name: 'web upload pages',
    weight: 8,
    make: (rng, index, w) => {
      const session = w.web.session;
      const roll = rng.next();
      if (roll < 0.4) {
        const parts: Part[] = rng.chance(0.95) ? audioParts(rng, index, w) : [];
        const token = csrfToken(rng, session);
        const headers: Record<string, string> = { cookie: `earshot_session=${session.cookie}` };
        if (token !== undefined) {
          if (rng.chance(0.85)) parts.push({ name: 'csrf_token', value: token });
          else headers['x-csrf-token'] = token;
        }
        return {
          method: 'POST',
          route: '/upload/',
          path: '/upload/',
          kind: 'page',
          headers,
          body: multipartBody(rng, shuffle(rng, parts)),
        };
      }
      if (roll < 0.48) return page('GET', '/upload/', '/upload/', session, rng);
      const file = (): string =>
        rng.chance(0.5)
          ? rng.pick(w.web.pendingFiles)
          : rng.chance(0.7)
            ? `fuzz-${rng.int(index + 1)}.${rng.pick(['wav', 'flac', 'aiff'])}`
            : hostile(rng);
      if (roll < 0.6)
        return page('GET', '/upload/describe/', '/upload/describe/', session, rng, undefined, {
          query: [['file', file()]],
        });
      if (roll < 0.85) {
        const form = fields(rng, DESCRIPTION, ['bst_category', 'tags', 'description', 'license']);
        form.unshift(['upload_filename', file()]);
        return page('POST', '/upload/describe/', '/upload/describe/', session, rng, form);
      }
      if (roll < 0.93)
        return page('GET', '/upload/pending/', '/upload/pending/', session, rng, undefined, {
          query: rng.chance(0.5) ? [['described', id(rng, w.valid.soundIds)]] : [],
        });
      return page('GET', '/upload/pending.json', '/upload/pending.json', session, rng);
    },
  },
  {
    name: 'web account and credentials',
    weight: 4,
    make: (rng, _i, w) => {
      const session = w.web.session;
      const roll = rng.next();
      if (roll < 0.15) return page('GET', '/apiv2/account/', '/apiv2/account/', session, rng);
      if (roll < 0.35)
        return page('GET', '/apiv2/apply/', '/apiv2/apply/', session, rng, undefined, {
          query: rng.chance(0.3) ? [['revoked', '1']] : [],
        });
      if (roll < 0.7) {
        const form = fields(
          rng,
          {
            name: ['Fuzz app', LONG(200), LONG(201), ''],
            description: ['An app', LONG(5000), ''],
            redirect_uri: [
              'https://app.example/cb',
              'http://127.0.0.1/cb',
              'javascript:alert(1)',
              'not a url',
              '',
            ],
          },
          ['name', 'description', 'redirect_uri'],
        );
        return page('POST', '/apiv2/apply/', '/apiv2/apply/', session, rng, form);
      }
      const action = rng.pick(['revoke', 'regenerate']);
      const clientId = rng.chance(0.4) ? w.web.clientId : rng.chance(0.5) ? w.client.id : hostile(rng);
      return page('POST', `/apiv2/apply/${action}/`, `/apiv2/apply/${action}/`, session, rng, [
        ['client_id', clientId],
      ]);
    },
  },
  {
    name: 'web moderation and people',
    weight: 5,
    make: (rng, _i, w) => {
      const session = w.web.session;
      const roll = rng.next();
      if (roll < 0.15)
        return page('GET', '/apiv2/moderation/', '/apiv2/moderation/', session, rng, undefined, {
          query: rng.chance(0.4) ? [[rng.pick(['approved', 'rejected']), hostile(rng)]] : [],
        });
      if (roll < 0.5) {
        const form = fields(
          rng,
          {
            sound_id: [...w.pendingSoundIds.map(String), ...w.valid.soundIds.map(String)],
            decision: ['approve', 'reject', 'reject', 'maybe', ''],
            reason: ['Not a sound.', LONG(5000), ' ', ''],
          },
          ['sound_id', 'decision'],
        );
        return page('POST', '/apiv2/moderation/', '/apiv2/moderation/', session, rng, form);
      }
      if (roll < 0.65) {
        const file = rng.pick([
          'preview-lq.mp3',
          'preview-hq.ogg',
          'waveform_m.png',
          'spectral_m.jpg',
          'x',
          '..%2F..%2Fetc',
        ]);
        return page(
          'GET',
          '/apiv2/moderation/sounds/{id}/{file}',
          `/apiv2/moderation/sounds/${id(rng, [...w.pendingSoundIds, ...w.valid.soundIds])}/${file}`,
          session,
          rng,
        );
      }
      const user = rng.chance(0.85) ? rng.pick(w.valid.usernames) : encode(hostile(rng));
      if (roll < 0.75) return page('GET', '/people/{username}/', `/people/${user}/`, session, rng);
      return page(
        'GET',
        '/people/{username}/packs/{id}/',
        `/people/${user}/packs/${id(rng, w.valid.packIds)}/`,
        session,
        rng,
      );
    },
  },
  {
    name: 'v1',
    weight: 4,
    make: (rng, _i, w) => {
      const target = rng.pick(w.v1Targets);
      const path = target.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
        safeRaw(pathValueFor(name, rng, w.valid).raw),
      );
      const query: [string, string][] = [];
      for (const name of target.queryParams)
        if (name !== 'api_key' && name !== 'token' && rng.chance(0.35))
          query.push([
            name,
            decodeURIComponent(safeRaw(valueFor(name, rng, w.valid).raw).replace(/\+/g, ' ')),
          ]);
      const headers: Record<string, string> = {};
      const auth = rng.next();
      if (auth < 0.5) query.push(['api_key', w.apiKey]);
      else if (auth < 0.7) headers.authorization = `Token ${w.apiKey}`;
      else if (auth < 0.8) headers.authorization = `Bearer ${w.tokens.writer}`;
      else query.push(['api_key', w.standardApiKey]);
      return api('GET', target.path, path, { headers, query });
    },
  },
];

/** Names of the families, as the run's per-family counts show them. */
export const WRITE_FAMILIES = FAMILIES.map((f) => f.name);

const TOTAL_WEIGHT = FAMILIES.reduce((sum, f) => sum + f.weight, 0);

/**
 * Request `index` of the write suite's run `runSeed`: a family by weight, then its route and values,
 * all drawn from the request's own seed (replayable by seed and index).
 */
export async function writeRequest(runSeed: number, index: number, w: WriteWorld): Promise<FuzzRequest> {
  const rng = new Rng(requestSeed(runSeed, index));
  const family = pickFamily(rng.next() * TOTAL_WEIGHT);
  const draft = await family.make(rng, index, w);
  const headers = { ...(draft.headers ?? {}) };
  if (draft.body) headers['content-type'] = draft.body.contentType;
  const query = draft.query && draft.query.length > 0 ? `?${urlEncoded(draft.query)}` : '';
  // Now and then the method the route does not take (a 405, not a handler reached with no body).
  const method = rng.chance(0.02) ? rng.pick(['PUT', 'PATCH', 'DELETE', 'GET', 'POST']) : draft.method;
  return {
    index,
    target: `${draft.method} ${draft.route}`,
    method,
    path: `${draft.path}${query}`,
    headers,
    body: method === 'GET' ? undefined : draft.body?.body,
    family: family.name,
    kind: draft.kind,
  };
}

function pickFamily(at: number): (typeof FAMILIES)[number] {
  let left = at;
  for (const family of FAMILIES) {
    if (left < family.weight) return family;
    left -= family.weight;
  }
  return FAMILIES[FAMILIES.length - 1];
}

/** A generator value that is raw bytes on purpose (broken escapes) is made safe to decode and re-encode. */
function safeRaw(raw: string): string {
  try {
    decodeURIComponent(raw);
    return raw;
  } catch {
    return encode(raw);
  }
}
