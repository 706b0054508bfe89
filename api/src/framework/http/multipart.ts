import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { EarshotError, ValidationError } from '@earshot/common';
import busboy from 'busboy';
import { refuseNulParameter } from '../middleware/nul-bytes.ts';

/**
 * The one reading of a multipart/form-data body, under every route and page that takes one (text
 * parameters, files in memory or on disk, the upload's file streamed to its receiver). Whatever is
 * wrong with the body is a 4xx naming it, never a server error: a body that ends before its closing
 * boundary (or a client that goes away) is a 400, a NUL character in a text part is a 400 naming the
 * part, a part over its limit is the limit's own error. File names are read as UTF-8 (browsers send
 * them so, raw in `filename="…"`; busboy's default is latin1).
 */

export interface MultipartLimits {
  maxFieldBytes: number;
  maxFields: number;
  maxFiles: number;
  /** The largest file part the parser lets through; longer parts emit 'limit' on their stream. */
  maxFileBytes?: number;
  /** How much of the body the parser and each file part may buffer (busboy's 16 KiB default otherwise). */
  bufferBytes?: number;
}

export interface FilePartInfo {
  filename: string;
  mimeType: string;
}

export interface MultipartHandlers {
  /**
   * A file part: read it to its end or drain it (drainPart). What it returns is awaited before the
   * read ends; a rejection (or a throw) fails the read with that error.
   */
  file: (name: string, stream: Readable, info: FilePartInfo) => Promise<unknown> | undefined;
}

export interface MultipartOptions extends MultipartLimits {
  /**
   * On the first failure, stop reading the body (the caller answers at once and closes the
   * connection) instead of reading it to its end. A receiver that destroys its part's stream (an
   * upload over its limit) needs it: the parser would wait for that stream forever.
   */
  stopOnFailure?: boolean;
}

/** The body's text parts (repeated names: the last one wins, as in the query string). */
export type MultipartFields = Record<string, string>;

/** busboy's words for a body it cannot parse, as a 400 the client can act on. */
export function unreadableBody(err: Error): ValidationError {
  return new ValidationError(`The multipart body could not be read: ${err.message}`);
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

export async function readMultipart(
  req: IncomingMessage,
  options: MultipartOptions,
  handlers: MultipartHandlers,
): Promise<MultipartFields> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        fieldSize: options.maxFieldBytes,
        fields: options.maxFields,
        files: options.maxFiles,
        ...(options.maxFileBytes !== undefined ? { fileSize: options.maxFileBytes } : {}),
      },
      ...(options.bufferBytes ? { highWaterMark: options.bufferBytes, fileHwm: options.bufferBytes } : {}),
    });
  } catch (err) {
    throw unreadableBody(err as Error);
  }
  const fields: MultipartFields = {};
  const pending: Promise<unknown>[] = [];
  // The first failure of the request's own making wins; the parser's complaint about the body is
  // kept apart, since a part's stream fails with busboy's bare Error when the body ends inside it.
  let failure: unknown;
  let malformed: EarshotError | undefined;
  let finish = () => {};
  let stopped = false;
  const stop = () => {
    stopped = true;
    req.unpipe(parser);
    // Ends the open part's stream with an error too, so its handler removes what it stored.
    parser.destroy();
    finish();
  };
  const fail = (err: unknown) => {
    if (failure !== undefined) return;
    failure = err;
    if (options.stopOnFailure) stop();
  };

  parser.on('field', (name: string | undefined, value, info) => {
    if (name === undefined) fail(new ValidationError(NAMELESS_PART));
    else if (info.valueTruncated)
      fail(new EarshotError(fieldTooLong(name, options.maxFieldBytes), 'body_too_large', 413));
    else {
      try {
        refuseNulParameter(name, value);
        fields[name] = value;
      } catch (err) {
        fail(err);
      }
    }
  });
  parser.on('fieldsLimit', () =>
    fail(new ValidationError(`The body has more than ${options.maxFields} parameters.`)),
  );
  parser.on('filesLimit', () => fail(new ValidationError('The body has too many files.')));
  parser.on('file', (name, stream, info) => {
    // Listened to from the first moment, whatever the handler does later (see drainPart).
    stream.on('error', () => {});
    if ((name as string | undefined) === undefined) fail(new ValidationError(NAMELESS_PART));
    if (failure !== undefined) {
      drainPart(stream);
      return;
    }
    try {
      const handled = handlers.file(name, stream, { filename: info.filename ?? '', mimeType: info.mimeType });
      if (handled) pending.push(handled.catch(fail));
    } catch (err) {
      fail(err);
      drainPart(stream);
    }
  });

  await new Promise<void>((resolve) => {
    finish = resolve;
    parser.on('close', resolve);
    parser.on('error', (err: Error) => {
      // The parser's own complaint after a stop of ours is not the client's fault.
      if (!stopped) malformed ??= unreadableBody(err);
      resolve();
    });
    // A client gone mid-body: the open part ends with an error, and its handler cleans up.
    req.on('close', () => {
      if (req.complete) return;
      if (stopped) return;
      malformed ??= new EarshotError('The client closed the connection mid-request.', 'client_gone', 400);
      stop();
    });
    req.pipe(parser);
  });
  await Promise.allSettled(pending);
  // What the client did wrong, first its own refusals (a name, a size), then a malformed body;
  // any other failure (a disk error) stays the server's.
  if (failure instanceof EarshotError) throw failure;
  if (malformed) throw malformed;
  if (failure !== undefined) throw failure;
  return fields;
}

// busboy hands a part without `name=` on with an undefined name, whatever its types say.
const NAMELESS_PART =
  'A part of the multipart body has no name: each needs Content-Disposition: form-data; name="…".';

function fieldTooLong(name: string, maxBytes: number): string {
  return `The parameter '${name}' is larger than ${Math.round(maxBytes / 1024)} KB.`;
}
