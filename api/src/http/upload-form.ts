import type { Readable } from 'node:stream';
import { EarshotError, ValidationError } from '@earshot/common';
import type { ReceivedFile } from '@earshot/services';
import busboy from 'busboy';
import type { Context } from 'koa';
import { drainPart } from './multipart-fields.ts';

/** A multipart upload read: its one file, already on disk, and its text fields. */
export interface UploadForm {
  file: ReceivedFile | undefined;
  fields: Record<string, string>;
}

export interface UploadFormOptions {
  /** The part holding the file (`audiofile`). */
  fileField: string;
  maxBytes: number;
  /** Refuses a file by its name before any of it is stored (throws). */
  checkName: (filename: string) => void;
  /** Streams the file part to disk; rejects (having removed what it wrote) when the stream fails. */
  receive: (stream: Readable, filename: string) => Promise<ReceivedFile>;
  discard: (file: ReceivedFile) => Promise<void>;
}

const MAX_FIELD_BYTES = 256 * 1024;
/** How much of the body each stage of the file's way to disk may hold (a few MiB in all). */
const STREAM_BUFFER_BYTES = 1024 * 1024;
/** Room for the text fields and multipart framing beyond the file itself. */
const FORM_OVERHEAD_BYTES = 4 * MAX_FIELD_BYTES;

/**
 * Reads a multipart/form-data upload with busboy as it arrives: the file part is streamed to disk
 * (never held in memory), the text fields are collected, whatever their order. A client that goes
 * away mid-upload, a file over the limit or a malformed body leave no file behind. Parts other
 * than the file field are text; other file parts are drained and ignored.
 */
export async function readUploadForm(ctx: Context, options: UploadFormOptions): Promise<UploadForm> {
  if (!ctx.is('multipart/form-data')) {
    throw new ValidationError(
      'Send the upload as multipart/form-data with the file in the "audiofile" part.',
      {
        audiofile: ['No file was submitted. Send the upload as multipart/form-data.'],
      },
    );
  }
  const declared = ctx.request.length;
  if (declared !== undefined && declared > options.maxBytes + FORM_OVERHEAD_BYTES) {
    ctx.set('Connection', 'close');
    throw tooLarge(options.maxBytes);
  }
  const req = ctx.req;
  const fields: Record<string, string> = {};
  let receiving: Promise<ReceivedFile | undefined> | undefined;
  let refused: unknown;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fieldSize: MAX_FIELD_BYTES, fields: 100, parts: 120 },
      // Room for many socket chunks in the parser and the file part: with Node's 16 KiB default
      // every 64 KiB chunk filled them, and each one paused and resumed the request.
      highWaterMark: STREAM_BUFFER_BYTES,
      fileHwm: STREAM_BUFFER_BYTES,
    });
  } catch (err) {
    throw new ValidationError(`The multipart body could not be read: ${(err as Error).message}`);
  }

  const done = new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) refused ??= new ValidationError(`The field "${name}" is too long.`);
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // The parser's own 'error' answers the request; this keeps the part's copy of it (a body
      // ending inside the part) from being an uncaught exception while the receiver sets up.
      stream.on('error', () => {});
      if (name !== options.fileField || receiving || refused) {
        drainPart(stream); // not ours (or already refused): drain, store nothing
        return;
      }
      const filename = info.filename ?? '';
      try {
        options.checkName(filename);
      } catch (err) {
        refused = err;
        drainPart(stream);
        return;
      }
      receiving = options.receive(stream, filename).catch((err) => {
        refused ??= err;
        // Stop reading: the rest of the body would only be thrown away.
        req.unpipe(parser);
        reject(err);
        return undefined;
      });
    });
    parser.on('error', (err: Error) =>
      reject(new ValidationError(`The multipart body could not be read: ${err.message}`)),
    );
    parser.on('close', resolve);
    // A client gone mid-upload: the file part ends with an error, and the receiver removes it.
    req.on('close', () => {
      if (!req.complete) {
        const gone = new EarshotError('The client closed the connection mid-upload.', 'client_gone', 400);
        parser.destroy(gone);
        reject(gone);
      }
    });
  });
  req.pipe(parser);

  try {
    await done;
    const file = await receiving;
    if (refused) throw refused;
    return { file, fields };
  } catch (err) {
    // Stop reading a body we refuse; the client gets the answer and the connection ends.
    ctx.set('Connection', 'close');
    const file = await receiving?.catch(() => undefined);
    if (file) await options.discard(file);
    throw refused ?? err;
  }
}

function tooLarge(maxBytes: number): EarshotError {
  return new EarshotError(
    `The audio file is larger than the ${maxBytes} bytes an upload may hold.`,
    'upload_too_large',
    413,
    {
      audiofile: [`The audio file is larger than ${maxBytes} bytes.`],
    },
  );
}
