import type { MPEGDecoder } from 'mpg123-decoder';
import { MediaError } from '../errors.ts';
import { mixGain } from './mix.ts';

/**
 * mpg123 (the `mpg123-decoder` package's WebAssembly build) kept for the thread's life and driven
 * below the package's `decode()`, for clip queries. Why not the package's own calls: each
 * `new MPEGDecoder()` instantiates a 16 MB WebAssembly memory, and dropping one per clip made the
 * garbage collector the largest single cost of a clip's decode (about a third of it, more than
 * mpg123 itself); `decode()` then copies every read into new per-channel arrays and joins them,
 * which the mix-down reads once more. Here one instance serves clip after clip (a fresh mpg123
 * stream each, the package's own create and destroy calls, so no state crosses clips) and every
 * read is mixed down straight from the module's memory into the one output array.
 *
 * It uses the package's private fields (the version in package-lock.json has them); when they are
 * missing (another version) `reusableMpegSupported()` is false and the caller keeps the package's
 * public calls.
 */

interface HeapArray<T> {
  ptr: number;
  len: number;
  buf: T;
}

interface MpegWasm {
  mpeg_decoder_feed(decoder: number, input: number, length: number): number;
  mpeg_decoder_read(
    decoder: number,
    output: number,
    outputLength: number,
    samplesDecoded: number,
    sampleRate: number,
    errorString: number,
  ): number;
  mpeg_frame_decoder_create(decoderPtr: number, gapless: number): number;
  mpeg_frame_decoder_destroy(decoder: number): void;
}

/** The package's fields this driver reads (MPEGDecoder.js of mpg123-decoder 1.0.x). */
interface MpegInternals {
  _common: { wasm: MpegWasm; allocateTypedArray<T>(len: number, type: unknown): HeapArray<T> };
  _decoder: number;
  _input: HeapArray<Uint8Array>;
  _output: HeapArray<Float32Array>;
  _samplesDecodedPtr: HeapArray<Uint32Array>;
  _sampleRatePtr: HeapArray<Uint32Array>;
  _errorStringPtr: HeapArray<Uint32Array>;
}

/** mpg123's return codes the read loop acts on (mpg123.h). */
const MPG123_NEED_MORE = -10;
const MPG123_NEW_FORMAT = -11;

/** One decoder's worth of output mixed to mono: the frames decoded, at `sampleRate`. */
export interface MonoSink {
  /** Frames wanted in all; the stream stops being read once they are out. */
  readonly limit: number;
  frames: number;
  sampleRate: number;
  samples: Float32Array;
}

export function monoSink(limit: number, expectedFrames: number): MonoSink {
  return { limit, frames: 0, sampleRate: 0, samples: new Float32Array(Math.min(limit, expectedFrames)) };
}

/** Makes room for `more` frames (doubling, at most up to the limit). */
function reserve(sink: MonoSink, more: number): void {
  const need = sink.frames + more;
  if (need <= sink.samples.length) return;
  const grown = new Float32Array(Math.min(sink.limit, Math.max(need, sink.samples.length * 2)));
  grown.set(sink.samples.subarray(0, sink.frames));
  sink.samples = grown;
}

export class ReusableMpegDecoder {
  private stream = 0;
  private readonly cell: HeapArray<Uint32Array>;
  private readonly inner: MpegInternals;

  private constructor(
    private readonly decoder: MPEGDecoder,
    internals: MpegInternals,
  ) {
    this.inner = internals;
    this.stream = internals._decoder;
    this.cell = internals._common.allocateTypedArray<Uint32Array>(1, Uint32Array);
  }

  static async create(): Promise<ReusableMpegDecoder | undefined> {
    const decoder = new (await import('mpg123-decoder')).MPEGDecoder();
    await decoder.ready;
    const internals = decoder as unknown as MpegInternals;
    if (!hasInternals(internals)) {
      decoder.free();
      return undefined;
    }
    return new ReusableMpegDecoder(decoder, internals);
  }

  /** Starts a new stream: the next bytes fed are the start of another file. */
  restart(): void {
    const { wasm } = this.inner._common;
    // Frees the stream's mpg123 handle and its struct (the package's own free() frees the struct
    // a second time, harmless there as the whole module goes; here it would corrupt the heap).
    wasm.mpeg_frame_decoder_destroy(this.stream);
    this.stream = 0;
    const error = wasm.mpeg_frame_decoder_create(this.cell.ptr, 1);
    if (error) throw new MediaError('processing_failed', undefined, { mpg123: error });
    this.stream = this.cell.buf[0];
  }

  /**
   * Feeds `data` (any length) and mixes every frame it yields into `sink` until the sink is full.
   * False on a decoder error or a sample rate other than `rate` (the caller leaves the file to
   * ffmpeg, as with the package's calls).
   */
  feed(data: Uint8Array, sink: MonoSink, rate: number): boolean {
    const { wasm } = this.inner._common;
    const input = this.inner._input;
    const output = this.inner._output;
    const decodedCell = this.inner._samplesDecodedPtr;
    const rateCell = this.inner._sampleRatePtr;
    const gain = mixGain(2);
    for (let offset = 0; offset < data.length && sink.frames < sink.limit; ) {
      const piece = data.subarray(offset, offset + input.len);
      offset += piece.length;
      input.buf.set(piece);
      let code = wasm.mpeg_decoder_feed(this.stream, input.ptr, piece.length);
      if (code === MPG123_NEED_MORE) continue;
      for (;;) {
        decodedCell.buf[0] = 0;
        code = wasm.mpeg_decoder_read(
          this.stream,
          output.ptr,
          output.len,
          decodedCell.ptr,
          rateCell.ptr,
          this.inner._errorStringPtr.ptr,
        );
        const frames = decodedCell.buf[0];
        if (frames > 0) {
          // A module memory that grew would leave the package's views detached (length 0).
          if (output.buf.length === 0 || rateCell.buf[0] !== rate) return false;
          sink.sampleRate = rate;
          const take = Math.min(frames, sink.limit - sink.frames);
          reserve(sink, take);
          // The package's layout: `frames` left samples, then `frames` right ones (mono files
          // come out on both). The same mean, in the same float32 steps, as mixInto.
          const out = sink.samples;
          const heap = output.buf;
          const at = sink.frames;
          for (let i = 0; i < take; i++) out[at + i] = heap[i] * gain + heap[frames + i] * gain;
          sink.frames += take;
          if (sink.frames >= sink.limit) return true;
        }
        if (code === MPG123_NEW_FORMAT) continue;
        if (code === MPG123_NEED_MORE) break;
        if (code !== 0) return false;
      }
    }
    return true;
  }

  free(): void {
    // The package's free() destroys the stream it knows: hand it the current one.
    this.inner._decoder = this.stream;
    this.decoder.free();
  }
}

function hasInternals(d: MpegInternals): boolean {
  const wasm = d._common?.wasm;
  return (
    typeof wasm?.mpeg_decoder_feed === 'function' &&
    typeof wasm.mpeg_decoder_read === 'function' &&
    typeof wasm.mpeg_frame_decoder_create === 'function' &&
    typeof wasm.mpeg_frame_decoder_destroy === 'function' &&
    typeof d._common.allocateTypedArray === 'function' &&
    typeof d._decoder === 'number' &&
    d._input?.buf instanceof Uint8Array &&
    d._output?.buf instanceof Float32Array &&
    d._samplesDecodedPtr?.buf instanceof Uint32Array &&
    d._sampleRatePtr?.buf instanceof Uint32Array &&
    typeof d._errorStringPtr?.ptr === 'number'
  );
}

/** Idle decoders of this thread (one per clip decoded at the same time; a clip thread needs one). */
const idle: ReusableMpegDecoder[] = [];
let supported: boolean | undefined;

/**
 * A decoder with a fresh stream, from this thread's idle ones or made; undefined when the package
 * lacks the fields this driver reads. Give it back with `releaseMpegDecoder`.
 */
export async function takeMpegDecoder(): Promise<ReusableMpegDecoder | undefined> {
  if (supported === false) return undefined;
  const reused = idle.pop();
  if (reused) {
    reused.restart();
    return reused;
  }
  // A new instance's stream is already fresh.
  const made = await ReusableMpegDecoder.create();
  supported = made !== undefined;
  return made;
}

/**
 * Back to the idle list (its stream is restarted when next taken). `broken`: it threw, so it is
 * dropped rather than trusted again.
 */
export function releaseMpegDecoder(decoder: ReusableMpegDecoder, broken = false): void {
  if (broken || idle.length >= 2) decoder.free();
  else idle.push(decoder);
}

/** Whether clips are decoded by the reused decoder (false: the package's public calls, per clip). */
export async function reusableMpegSupported(): Promise<boolean> {
  const decoder = await takeMpegDecoder();
  if (decoder) releaseMpegDecoder(decoder);
  return decoder !== undefined;
}
