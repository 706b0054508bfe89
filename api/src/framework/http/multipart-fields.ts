import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EarshotError, ValidationError } from '@earshot/common';
import { formatBytes } from '../middleware/body-limit.ts';
import { drainPart, type FilePartInfo, readMultipart } from './multipart.ts';

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

export interface MultipartFieldLimits {
  files: Readonly<Record<string, FileFieldSpec>>;
  maxFieldBytes: number;
  maxFields: number;
}

class PartTooLarge extends EarshotError {
  constructor(what: string, maxBytes: number) {
    super(`${what} is larger than ${formatBytes(maxBytes)}.`, 'body_too_large', 413);
  }
}

export async function readMultipartFields(
  req: IncomingMessage,
  limits: MultipartFieldLimits,
): Promise<MultipartContent> {
  let tempDir: string | undefined;
  const cleanup = async () => {
    const dir = tempDir;
    tempDir = undefined;
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  };
  const files: Record<string, UploadedFile> = {};
  const largestFile = Math.max(0, ...Object.values(limits.files).map((f) => f.maxBytes));
  const storePart = async (name: string, stream: Readable, info: FilePartInfo) => {
    const spec = limits.files[name];
    if (!spec) {
      drainPart(stream);
      throw new ValidationError(
        `File parameters are not accepted here ('${name}'); send parameters as text.`,
      );
    }
    const part = { field: name, fileName: info.filename, mimeType: info.mimeType };
    let size = 0;
    let tooLarge = false;
    // The rest of a part over its limit is still read (bounded by the largest file limit) and
    // thrown away; the read then fails with the 413. Counted from where the part is read, not
    // before: a 'data' listener starts the flow.
    const count = (chunk: Buffer) => {
      size += chunk.length;
      tooLarge ||= size > spec.maxBytes;
    };
    if (spec.store === 'memory') {
      stream.on('data', count);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!tooLarge) chunks.push(chunk);
      });
      await new Promise<void>((resolve, reject) => {
        stream.on('end', resolve);
        stream.on('error', reject);
      });
      if (tooLarge) throw new PartTooLarge(`The file '${name}'`, spec.maxBytes);
      files[name] = { ...part, store: 'memory', size, data: Buffer.concat(chunks) };
      return;
    }
    tempDir ??= await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-upload-'));
    // Never the client's name on disk: only its extension, which the probe checks against the content.
    const ext = path
      .extname(part.fileName)
      .replace(/[^.A-Za-z0-9]/g, '')
      .slice(0, 10);
    const file = path.join(tempDir, `${name}${ext}`);
    stream.on('data', count);
    await pipeline(stream, createWriteStream(file));
    if (tooLarge) throw new PartTooLarge(`The file '${name}'`, spec.maxBytes);
    files[name] = { ...part, store: 'temp-file', size, path: file };
  };
  try {
    const fields = await readMultipart(
      req,
      {
        maxFieldBytes: limits.maxFieldBytes,
        maxFields: limits.maxFields,
        maxFiles: 4,
        maxFileBytes: largestFile + 1,
      },
      { file: storePart },
    );
    return { fields, files, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
