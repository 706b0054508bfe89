import type { Rng } from './rng.ts';

/** One part of a multipart body: a text field, or a file when `filename` is set. */
export interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
}

/** A body as sent: its bytes and the Content-Type announcing them. */
export interface EncodedBody {
  body: Buffer;
  contentType: string;
}

/** JSON values of the wrong type, for a field the server reads as text. */
const WRONG_TYPES: unknown[] = [1, -1, 1e308, true, null, [], ['a', 'b'], {}, { a: 1 }, [[[]]]];

/**
 * Text fields as a body, the way a client might send them: url-encoded, JSON (sometimes a field of
 * the wrong type, or broken JSON), or multipart. `fields` may name a field twice.
 */
export function encodeFields(
  rng: Rng,
  fields: [string, string][],
  kinds: readonly BodyKind[] = FIELD_KINDS,
): EncodedBody {
  const kind = rng.pick(kinds);
  if (kind === 'json') {
    if (rng.chance(0.05))
      return {
        body: Buffer.from(rng.pick(['{', '[]', 'null', '"x"', '{"a":', '1e999'])),
        contentType: 'application/json',
      };
    const object: Record<string, unknown> = {};
    for (const [k, v] of fields) object[k] = rng.chance(0.1) ? rng.pick(WRONG_TYPES) : v;
    return { body: Buffer.from(JSON.stringify(object)), contentType: 'application/json' };
  }
  if (kind === 'multipart')
    return multipartBody(
      rng,
      fields.map(([name, value]) => ({ name, value })),
    );
  return {
    body: Buffer.from(urlEncoded(fields)),
    contentType: rng.chance(0.95)
      ? 'application/x-www-form-urlencoded'
      : rng.pick([
          'application/x-www-form-urlencoded; charset=latin1',
          'application/x-www-form-urlencoded;;',
        ]),
  };
}

export type BodyKind = 'form' | 'json' | 'multipart';

const FIELD_KINDS: readonly BodyKind[] = ['form', 'form', 'form', 'json', 'multipart'];

export function urlEncoded(fields: [string, string][]): string {
  return fields.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
}

/** encodeURIComponent, but a lone surrogate (which it refuses) goes out as its UTF-8 replacement. */
export function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));
  }
}

const BOUNDARY = '----earshotfuzz7MA4YWxk';

/**
 * A multipart/form-data body as a browser writes it (UTF-8 names and values), and sometimes as one
 * does not: cut short inside a part, without its closing boundary, with junk before the first part,
 * a part without a name, or a filename but no Content-Type.
 */
export function multipartBody(rng: Rng, parts: Part[]): EncodedBody {
  const chunks: Buffer[] = [];
  if (rng.chance(0.02)) chunks.push(Buffer.from('preamble junk\r\n'));
  for (const part of parts) {
    const name = rng.chance(0.01) ? '' : `; name="${quoted(part.name)}"`;
    const file = part.filename === undefined ? '' : `; filename="${quoted(part.filename)}"`;
    const type =
      part.filename !== undefined && rng.chance(0.9)
        ? `\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}`
        : '';
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data${name}${file}${type}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  const roll = rng.next();
  let body = Buffer.concat(chunks);
  if (roll < 0.9) body = Buffer.concat([body, Buffer.from(`--${BOUNDARY}--\r\n`)]);
  else if (roll < 0.93) body = Buffer.concat([body, Buffer.from(`--${BOUNDARY}--`)]);
  else if (roll < 0.96) body = body.subarray(0, rng.int(body.length + 1));
  // else: every part whole, the closing boundary missing
  return { body, contentType: `multipart/form-data; boundary=${BOUNDARY}` };
}

/** A header parameter's quoted value as browsers write it (quote and line breaks escaped). */
function quoted(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * A copy of an audio file that no other request of the run sends (its last bytes carry the request's
 * index: samples for WAV and AIFF, trailing bytes a decoder ignores for the others), so uploads are
 * new files and not refused as duplicates; `same` keeps the file as it is (a duplicate).
 */
export function uniqueAudio(file: Buffer, name: string, index: number, same: boolean): Buffer {
  if (same || file.length === 0) return file;
  const copy = Buffer.from(file);
  const stamp = Buffer.alloc(4);
  stamp.writeUInt32LE(index + 1);
  if (/\.(wav|aiff?)$/i.test(name) && copy.length > 64) {
    stamp.copy(copy, copy.length - 4);
    return copy;
  }
  return Buffer.concat([copy, stamp]);
}
