import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError } from '@earshot/common';
import { ORIGINAL_MEDIA_TYPES } from '@earshot/core';
import type { Context } from 'koa';

/** Content types by file extension: the originals' formats and the other stored files' kinds. */
const MEDIA_TYPES: Record<string, string> = {
  ...ORIGINAL_MEDIA_TYPES,
  png: 'image/png',
  jpg: 'image/jpeg',
  json: 'application/json',
};

export interface SendFileOptions {
  /** Seconds clients and caches may keep the file. */
  maxAge: number;
  /** Only the requesting browser may keep it (a file shown to a moderator, not to the public). */
  private?: boolean;
  /** The Content-Type; default: by the file's extension. */
  mediaType?: string;
}

/** What was sent: `fromStart` when the body begins at the file's first byte (200, or 206 from 0). */
export interface SentFile {
  fromStart: boolean;
}

/**
 * Streams a stored file with validators (ETag, Last-Modified → 304) and single byte ranges
 * (`Range: bytes=a-b`, `a-`, `-n` → 206, unsatisfiable → 416), so audio players can seek.
 */
export async function sendFile(ctx: Context, file: string, options: SendFileOptions): Promise<SentFile> {
  const stat = await statOrNotFound(file);
  const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  const ext = path.extname(file).slice(1).toLowerCase();
  ctx.set('Content-Type', options.mediaType ?? MEDIA_TYPES[ext] ?? 'application/octet-stream');
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', etag);
  ctx.set('Last-Modified', stat.mtime.toUTCString());
  ctx.set('Cache-Control', `${options.private ? 'private' : 'public'}, max-age=${options.maxAge}`);

  if (notModified(ctx, etag, stat.mtime)) {
    ctx.status = 304;
    ctx.body = null;
    return { fromStart: false };
  }

  const range = ctx.get('Range');
  const ifRange = ctx.get('If-Range');
  const rangeApplies = range !== '' && (ifRange === '' || ifRange === etag);
  if (rangeApplies) {
    const parsed = parseRange(range, stat.size);
    if (parsed === 'unsatisfiable') {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${stat.size}`);
      ctx.body = { detail: 'Requested range not satisfiable.' };
      return { fromStart: false };
    }
    if (parsed) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${parsed.start}-${parsed.end}/${stat.size}`);
      ctx.length = parsed.end - parsed.start + 1;
      ctx.body = fs.createReadStream(file, { start: parsed.start, end: parsed.end });
      return { fromStart: parsed.start === 0 };
    }
  }
  ctx.status = 200;
  ctx.length = stat.size;
  ctx.body = fs.createReadStream(file);
  return { fromStart: true };
}

function notModified(ctx: Context, etag: string, mtime: Date): boolean {
  const ifNoneMatch = ctx.get('If-None-Match');
  if (ifNoneMatch) return ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*');
  const since = Date.parse(ctx.get('If-Modified-Since'));
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) <= Math.floor(since / 1000);
}

/**
 * One `bytes=` range. Several ranges (multipart answers) are rare for audio; the whole file is
 * sent instead, which RFC 9110 allows.
 */
export function parseRange(
  header: string,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return undefined;
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * The catalogue may name a file that is not on disk (removed by an operator, a reprocess under
 * way, a volume not mounted): for the client that is a missing file, not a server error.
 */
async function statOrNotFound(file: string): Promise<fs.Stats> {
  try {
    const stat = await fs.promises.stat(file);
    if (stat.isFile()) return stat;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  throw new NotFoundError('Not found.');
}
