import { EarshotError, ValidationError } from '@earshot/common';
import type { Context } from 'koa';
import { bodyLimitOf, bodyTooLargeFor, DEFAULT_BODY_LIMIT } from '../middleware/body-limit.ts';
import { refuseNulParameter } from '../middleware/nul-bytes.ts';
import { type FileFieldSpec, readMultipartFields, type UploadedFile } from './multipart-fields.ts';

/** A POST body's parameters and, for routes that take files, its files (see multipart-fields.ts). */
export interface BodyContent {
  params: Record<string, string>;
  files: Record<string, UploadedFile>;
  /** Deletes the files stored for this request. */
  cleanup(): Promise<void>;
}

const NO_FILES: Pick<BodyContent, 'files' | 'cleanup'> = { files: {}, cleanup: async () => {} };

/**
 * The body of a route that may take files: a multipart body is read with the route's file fields
 * (in memory or to temporary files); every other body as `readBodyParams` reads it.
 */
export async function readBody(
  ctx: Context,
  fileFields: Readonly<Record<string, FileFieldSpec>> | undefined,
): Promise<BodyContent> {
  if (!fileFields || ctx.request.length === 0 || ctx.is('multipart/form-data') !== 'multipart/form-data') {
    return { params: await readBodyParams(ctx), ...NO_FILES };
  }
  const content = await readMultipartFields(ctx.req, {
    files: fileFields,
    maxFieldBytes: DEFAULT_BODY_LIMIT,
    maxFields: 100,
  });
  // The multipart reader refuses NUL characters itself (http/multipart.ts).
  return { params: content.fields, files: content.files, cleanup: content.cleanup };
}

/**
 * Parameters sent in a POST body, in the three encodings the contract accepts when no file is sent
 * (url-encoded form, multipart form, JSON object), as the same name → text map the query string
 * gives. A request without a body has none; a body that cannot be read is a 400 saying why.
 */
export async function readBodyParams(ctx: Context): Promise<Record<string, string>> {
  // No body at all, or an empty one (a bare POST sends Content-Length: 0 and no type).
  if (ctx.request.length === 0) return {};
  const type = ctx.is('application/x-www-form-urlencoded', 'multipart/form-data', 'application/json');
  if (type === null) return {};
  if (type === false) {
    throw new EarshotError(
      `Unsupported body type "${ctx.get('Content-Type')}"; send parameters as application/x-www-form-urlencoded, multipart/form-data or application/json.`,
      'unsupported_media_type',
      415,
    );
  }
  if (type === 'multipart/form-data') return readMultipart(ctx);
  return withoutNul(await readTyped(ctx, type));
}

async function readTyped(ctx: Context, type: string): Promise<Record<string, string>> {
  const text = await readText(ctx);
  if (type === 'application/json') return text.trim() === '' ? {} : fromJson(text);
  // Repeated names: the last one wins, as in the query string.
  return Object.fromEntries(new URLSearchParams(text));
}

/** As in the query string (middleware/nul-bytes.ts): no stored value can hold a NUL character. */
function withoutNul(params: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(params)) refuseNulParameter(name, value);
  return params;
}

/** Reads the body up to the request's limit (middleware/body-limit.ts); bigger is refused. */
async function readText(ctx: Context): Promise<string> {
  const limit = bodyLimitOf(ctx);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw bodyTooLargeFor(ctx);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function fromJson(text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ValidationError(`The body is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('The body must be a JSON object of parameters.');
  }
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (value === null) continue;
    // Numbers and booleans as a client would write them in the query string (page_size=15).
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      params[name] = String(value);
    } else {
      throw new ValidationError(
        `Invalid value for parameter '${name}': expected a string, number or boolean.`,
      );
    }
  }
  return params;
}

/** A multipart body of text parameters only: a file part is refused before any of it is stored. */
async function readMultipart(ctx: Context): Promise<Record<string, string>> {
  const content = await readMultipartFields(ctx.req, {
    files: {},
    maxFieldBytes: bodyLimitOf(ctx),
    maxFields: 100,
  });
  return content.fields;
}
