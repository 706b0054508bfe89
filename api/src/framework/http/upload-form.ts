import type { Readable } from 'node:stream';
import { EarshotError, ValidationError } from '@earshot/common';
import type { ReceivedFile } from '@earshot/services';
import type { Context } from 'koa';
import { drainPart, type FilePartInfo, readMultipart } from './multipart.ts';

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
  let receiving: Promise<ReceivedFile> | undefined;
  const receivePart = (name: string, stream: Readable, info: FilePartInfo) => {
    if (name !== options.fileField || receiving) {
      drainPart(stream); // not ours, or a second one: drain, store nothing
      return undefined;
    }
    // A name refused throws here, before any of the file is stored.
    options.checkName(info.filename);
    receiving = options.receive(stream, info.filename);
    return receiving;
  };
  try {
    const fields = await readMultipart(
      ctx.req,
      {
        maxFieldBytes: MAX_FIELD_BYTES,
        maxFields: 100,
        maxFiles: 20,
        // Room for many socket chunks in the parser and the file part: with Node's 16 KiB default
        // every 64 KiB chunk filled them, and each one paused and resumed the request.
        bufferBytes: STREAM_BUFFER_BYTES,
        // A refused file stops the read: the rest of the body would only be thrown away.
        stopOnFailure: true,
      },
      { file: receivePart },
    );
    return { file: await receiving, fields };
  } catch (err) {
    // Stop reading a body we refuse; the client gets the answer and the connection ends.
    ctx.set('Connection', 'close');
    const file = await receiving?.catch(() => undefined);
    if (file) await options.discard(file);
    throw err;
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
