import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EarshotError, ValidationError } from '@earshot/common';
import busboy from 'busboy';

/**
 * Reads a multipart/form-data body: its text fields, and the file fields a route names, each
 * either kept in memory (small documents such as an analysis file) or streamed to a temporary file
 * (audio). Anything over a limit stops the read with a 413 naming the part; a file part the route
 * does not name is a 400. Temporary files live in one folder per request that `cleanup()` removes;
 * on any error it is removed before the error is thrown.
 */

/** Where a file part goes and how big it may be. */
export type FileFieldSpec = { store: 'memory'; maxBytes: number } | { store: 'temp-file'; maxBytes: number };

interface UploadedPart {
  field: string;
  /** The name the client gave the file (may be empty). */
  fileName: string;
  mimeType: string;
  size: number;
}

export interface MemoryFile extends UploadedPart {
  store: 'memory';
  data: Buffer;
}

export interface TempFile extends UploadedPart {
  store: 'temp-file';
  path: string;
}

export type UploadedFile = MemoryFile | TempFile;

export interface MultipartContent {
  fields: Record<string, string>;
  files: Record<string, UploadedFile>;
  /** Deletes the temporary files; safe to call more than once. */
  cleanup(): Promise<void>;
}

export interface MultipartLimits {
  files: Readonly<Record<string, FileFieldSpec>>;
  maxFieldBytes: number;
  maxFields: number;
}

class PartTooLarge extends EarshotError {
  constructor(what: string, maxBytes: number) {
    super(`${what} is larger than ${formatBytes(maxBytes)}.`, 'body_too_large', 413);
  }
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * Reads a file part nobody wants to its end. Its error listener matters: a body that stops inside
 * the part makes busboy destroy the part's stream with 'Unexpected end of form', and an 'error' no
 * one listens to is an uncaught exception that ends the process (the parser's own error answers).
 */
export function drainPart(stream: Readable): void {
  stream.on('error', () => {});
  stream.resume();
}

export async function readMultipartFields(
  req: Readable & { headers: IncomingHttpHeaders },
  limits: MultipartLimits,
): Promise<MultipartContent> {
  let tempDir: string | undefined;
  const cleanup = async () => {
    const dir = tempDir;
    tempDir = undefined;
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  };
  const fields: Record<string, string> = {};
  const files: Record<string, UploadedFile> = {};
  let parser: busboy.Busboy;
  try {
    const largestFile = Math.max(0, ...Object.values(limits.files).map((f) => f.maxBytes));
    parser = busboy({
      headers: req.headers,
      limits: {
        fieldSize: limits.maxFieldBytes,
        fields: limits.maxFields,
        files: 4,
        fileSize: largestFile + 1,
      },
    });
  } catch (err) {
    throw new ValidationError(`The multipart body could not be read: ${(err as Error).message}`);
  }
  const pending: Promise<void>[] = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
  };

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(new PartTooLarge(`The parameter '${name}'`, limits.maxFieldBytes));
    // Repeated names: the last one wins, as in the query string.
    else fields[name] = value;
  });
  parser.on('fieldsLimit', () =>
    fail(new ValidationError(`The body has more than ${limits.maxFields} parameters.`)),
  );
  parser.on('filesLimit', () => fail(new ValidationError('The body has too many files.')));
  parser.on('file', (name, stream, info) => {
    // Listened to from the first moment: the body may end while the part waits for its temporary
    // folder, and the part's 'Unexpected end of form' must not become an uncaught exception.
    stream.on('error', fail);
    const spec = limits.files[name];
    if (failure || !spec) {
      if (!spec)
        fail(
          new ValidationError(`File parameters are not accepted here ('${name}'); send parameters as text.`),
        );
      drainPart(stream);
      return;
    }
    const part = { field: name, fileName: info.filename ?? '', mimeType: info.mimeType };
    stream.on('limit', () => fail(new PartTooLarge(`The file '${name}'`, spec.maxBytes)));
    if (spec.store === 'memory') {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > spec.maxBytes) fail(new PartTooLarge(`The file '${name}'`, spec.maxBytes));
        else chunks.push(chunk);
      });
      pending.push(
        new Promise<void>((resolve, reject) => {
          stream.on('end', resolve);
          stream.on('error', reject);
        })
          .then(() => {
            files[name] = { ...part, store: 'memory', size, data: Buffer.concat(chunks) };
          })
          .catch(fail),
      );
      return;
    }
    pending.push(
      (async () => {
        tempDir ??= await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-upload-'));
        // Never the client's name on disk: only its extension, which the probe checks against the content.
        const ext = path
          .extname(part.fileName)
          .replace(/[^.A-Za-z0-9]/g, '')
          .slice(0, 10);
        const file = path.join(tempDir, `${name}${ext}`);
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          // The rest still goes to disk (bounded by the largest file limit) and is deleted with the folder.
          if (size > spec.maxBytes) fail(new PartTooLarge(`The file '${name}'`, spec.maxBytes));
        });
        await pipeline(stream, createWriteStream(file));
        files[name] = { ...part, store: 'temp-file', size, path: file };
      })().catch(fail),
    );
  });

  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('close', resolve);
      parser.on('error', (err: Error) =>
        reject(new ValidationError(`The multipart body could not be read: ${err.message}`)),
      );
      req.on('error', reject);
      req.pipe(parser);
    });
    await Promise.all(pending);
    if (failure) throw failure;
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { fields, files, cleanup };
}
