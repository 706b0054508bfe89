import { Rng, requestSeed } from './rng.ts';
import type { FuzzTarget } from './targets.ts';
import { BROKEN_ENCODINGS, METHODS, pathValueFor, type ValidValues, valueFor } from './values.ts';

/** One request, as sent on the wire: the path may hold raw bytes (as latin1 characters). */
export interface FuzzRequest {
  index: number;
  target: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The route family it belongs to, for the per-family counts of a run (the write suite sets it). */
  family?: string;
  /** How a 4xx must explain itself (default: by the target's kind). */
  kind?: 'api' | 'page';
}

/** What the requests may carry to get past authentication (so the code behind it is reached). */
export interface Credentials {
  apiKey: string;
  accessToken: string;
}

const BOUNDARY = 'fuzzboundary';

/**
 * The request `index` of the run seeded `runSeed`: a function of those two numbers only (and the
 * route list), so a failure is replayed by its seed and index alone.
 */
export function generateRequest(
  runSeed: number,
  index: number,
  targets: readonly FuzzTarget[],
  valid: ValidValues,
  creds: Credentials,
): FuzzRequest {
  const rng = new Rng(requestSeed(runSeed, index));
  const target = rng.pick(targets);
  const method = rng.chance(0.8) ? target.method : rng.pick(METHODS);
  const path = target.path.replace(
    /\{([A-Za-z0-9_]+)\}/g,
    (_, name: string) => pathValueFor(name, rng, valid).raw,
  );
  const query: string[] = [];
  for (const name of target.queryParams) {
    if (rng.chance(0.35)) query.push(`${name}=${valueFor(name, rng, valid).raw}`);
  }
  if (rng.chance(0.05)) query.push(rng.pick(BROKEN_ENCODINGS));
  if (rng.chance(0.05))
    query.push(`${rng.pick(target.queryParams.concat('x'))}=1&${rng.pick(target.queryParams.concat('x'))}=2`);
  const headers: Record<string, string> = {};
  authenticate(rng, target, creds, query, headers);
  hostileHeaders(rng, headers);
  const body = method === 'GET' || method === 'HEAD' ? undefined : makeBody(rng, target, valid, headers);
  const queryString = query.length > 0 ? `?${query.join('&')}` : '';
  return {
    index,
    target: `${target.method} ${target.path}`,
    method,
    path: `${path}${queryString}`,
    headers,
    body,
  };
}

function authenticate(
  rng: Rng,
  target: FuzzTarget,
  creds: Credentials,
  query: string[],
  headers: Record<string, string>,
): void {
  const keyParam = target.path.startsWith('/api/') ? 'api_key' : 'token';
  const roll = rng.int(10);
  if (roll < 3) query.push(`${keyParam}=${creds.apiKey}`);
  else if (roll < 5) headers.authorization = `Bearer ${creds.accessToken}`;
  else if (roll < 6) headers.authorization = `Token ${creds.apiKey}`;
  else if (roll < 8) {
    headers.authorization = rng.pick([
      'Token ',
      'Bearer ',
      'Bearer',
      'Basic Zm9vOmJhcg==',
      `Token ${creds.apiKey}x`,
      `Bearer ${creds.accessToken.slice(0, -1)}`,
      `bearer ${creds.accessToken}`,
      `Token ${'k'.repeat(4000)}`,
      'Token \u00ff\u00fe',
      `Token ${creds.apiKey} Bearer ${creds.accessToken}`,
      'Digest username="a"',
    ]);
  } else if (roll < 9)
    query.push(`${keyParam}=${rng.pick(['', '%00', 'x'.repeat(3000), '%FF', `${creds.apiKey}%00`])}`);
}

function hostileHeaders(rng: Rng, headers: Record<string, string>): void {
  if (rng.chance(0.05))
    headers.host = rng.pick(['evil.example', '', 'a'.repeat(300), '127.0.0.1:99999', '[::1', 'x y']);
  if (rng.chance(0.05))
    headers.range = rng.pick([
      'bytes=0-0',
      'bytes=-1',
      'bytes=5-1',
      'bytes=0-',
      'bytes=99999999999999999999-',
      'bytes=0-1,2-3,4-5',
      'bytes=x',
      'items=0-1',
      'bytes=-0',
      'bytes=9007199254740993-',
    ]);
  if (rng.chance(0.05))
    headers.accept = rng.pick(['application/xml', 'application/yaml', 'text/html', '*/*;q=abc', 'x/y', '']);
  if (rng.chance(0.02)) headers['x-huge'] = 'h'.repeat(rng.pick([8000, 20000]));
  if (rng.chance(0.03))
    headers.cookie = rng.pick([
      'earshot_session=%FF',
      'earshot_session=x'.repeat(100),
      '=;=;',
      'csrf=\u00ff',
    ]);
  if (rng.chance(0.03)) headers['x-forwarded-host'] = 'evil.example';
  if (rng.chance(0.03)) headers['accept-encoding'] = 'gzip;q=NaN, br, *';
}

function makeBody(
  rng: Rng,
  target: FuzzTarget,
  valid: ValidValues,
  headers: Record<string, string>,
): Buffer | undefined {
  const fields = target.queryParams.filter(() => rng.chance(0.4));
  const kind = rng.int(target.multipart ? 8 : 7);
  if (kind === 0) return undefined;
  if (kind === 1) {
    headers['content-type'] = 'application/json';
    const object = Object.fromEntries(fields.map((f) => [f, decodeLoosely(valueFor(f, rng, valid).raw)]));
    return Buffer.from(
      rng.chance(0.8)
        ? JSON.stringify(object)
        : rng.pick(['{', '[]', 'null', '"x"', '{"a":{"b":'.repeat(2000), '1e999']),
    );
  }
  if (kind === 2) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return Buffer.from(fields.map((f) => `${f}=${valueFor(f, rng, valid).raw}`).join('&'), 'latin1');
  }
  if (kind === 3) {
    headers['content-type'] = rng.pick([
      `multipart/form-data; boundary=${BOUNDARY}`,
      'multipart/form-data',
      'multipart/form-data; boundary=',
      `multipart/form-data; boundary=${'b'.repeat(300)}`,
      'multipart/form-data; boundary=other',
    ]);
    return multipart(rng, fields, valid, target.multipart);
  }
  if (kind === 4) {
    headers['content-type'] = rng.pick([
      'text/plain',
      'application/xml',
      'application/json; charset=utf-7',
      '',
      'x',
      '*/*',
    ]);
    return Buffer.from(rng.pick(['<a/>', 'plain', '\u0000\u0001', '']), 'latin1');
  }
  if (kind === 5) {
    headers['content-type'] = rng.pick([
      'application/json',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
    ]);
    return Buffer.alloc(rng.pick([70_000, 300_000, 2_000_000]), 0x61);
  }
  if (kind === 6) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = rng.pick(['abc', '-1', '99999999999999999999']);
    return undefined;
  }
  headers['content-type'] = `multipart/form-data; boundary=${BOUNDARY}`;
  return multipart(rng, fields, valid, true);
}

function multipart(rng: Rng, fields: string[], valid: ValidValues, withFile: boolean): Buffer {
  const parts: string[] = [];
  for (const f of fields) {
    parts.push(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${f}"\r\n\r\n${decodeLoosely(valueFor(f, rng, valid).raw)}\r\n`,
    );
  }
  if (withFile) {
    const name = rng.pick(['audio_file', 'analysis_file', 'file', 'other', '']);
    const content = rng.pick(['{"lowlevel":{}}', 'RIFF\u0000\u0000\u0000\u0000WAVE', 'not audio', '', '{']);
    parts.push(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${rng.pick(['a.wav', '../../x', '', '\u00ff.json'])}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n`,
    );
  }
  const ending = rng.pick([`--${BOUNDARY}--\r\n`, `--${BOUNDARY}`, '', `--${BOUNDARY}--`, '--\r\n']);
  return Buffer.from(parts.join('') + ending, 'latin1');
}

function decodeLoosely(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}
