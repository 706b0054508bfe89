import { sanitizeSamples } from './sanitize-samples.ts';

/** Largest buffer we preallocate on the word of a header alone (20 min at 44.1 kHz ≈ 106 MB). */
const MAX_PREALLOCATED_SAMPLES = 20 * 60 * 44_100;
/** Slack above the probed length: containers round durations, resamplers add a few samples. */
const MARGIN_SAMPLES = 8192;

/** The most samples a sink takes, and the error it stops the stream with past that. */
export interface SinkCap {
  samples: number;
  /** Without one, samples past the cap are dropped (a clip whose decoder was told where to stop). */
  error?: () => Error;
}

/**
 * Collects a float32 little-endian byte stream into one Float32Array sized from the probed duration,
 * so decoding costs the signal itself plus one chunk (no list of chunks, no concat). Chunks may split
 * a float between them; the split bytes are carried over. With a cap, a stream longer than it throws
 * from `write` (which stops the decoder: see Ffmpeg.run's onStdout) instead of growing the buffer.
 */
export class MonoSink {
  private buffer: Float32Array;
  private bytes: Uint8Array;
  private length = 0;
  private carry = Buffer.alloc(4);
  private carryLength = 0;

  constructor(
    expectedSamples: number,
    private readonly cap?: SinkCap,
  ) {
    const capacity = Math.min(
      Math.min(Math.max(0, Math.ceil(expectedSamples)), MAX_PREALLOCATED_SAMPLES) + MARGIN_SAMPLES,
      cap ? Math.max(0, Math.floor(cap.samples)) : Number.POSITIVE_INFINITY,
    );
    this.buffer = new Float32Array(capacity);
    this.bytes = new Uint8Array(this.buffer.buffer);
  }

  get samplesWritten(): number {
    return this.length;
  }

  /** Accepts any slice of the byte stream. */
  write(chunk: Buffer): void {
    let offset = 0;
    if (this.carryLength > 0) {
      const take = Math.min(4 - this.carryLength, chunk.length);
      chunk.copy(this.carry, this.carryLength, 0, take);
      this.carryLength += take;
      offset = take;
      if (this.carryLength < 4) return;
      this.append(this.carry, 0, 4);
      this.carryLength = 0;
    }
    const whole = (chunk.length - offset) & ~3;
    this.append(chunk, offset, whole);
    offset += whole;
    if (offset < chunk.length) {
      chunk.copy(this.carry, 0, offset);
      this.carryLength = chunk.length - offset;
    }
  }

  /** The samples written so far, made safe to measure (sanitizeSamples); a view into the one buffer (no copy). */
  finish(): Float32Array {
    const samples = this.buffer.subarray(0, this.length);
    sanitizeSamples(samples);
    return samples;
  }

  private append(source: Uint8Array, offset: number, byteCount: number): void {
    let samples = byteCount / 4;
    if (this.cap && this.length + samples > this.cap.samples) {
      if (this.cap.error) throw this.cap.error();
      samples = Math.max(0, Math.floor(this.cap.samples) - this.length);
    }
    if (samples === 0) return;
    const needed = this.length + samples;
    // Only a header that under-states its length lands here; grow geometrically so it stays rare.
    if (needed > this.buffer.length) {
      const grown = Math.max(needed, Math.ceil(this.buffer.length * 1.5));
      this.grow(this.cap ? Math.min(grown, Math.floor(this.cap.samples)) : grown);
    }
    this.bytes.set(source.subarray(offset, offset + samples * 4), this.length * 4);
    this.length = needed;
  }

  private grow(capacity: number): void {
    const next = new Float32Array(capacity);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.bytes = new Uint8Array(next.buffer);
  }
}
