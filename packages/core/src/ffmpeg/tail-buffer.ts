const STDERR_TAIL_BYTES = 4096;

/** Keeps only the last `limit` bytes of a stream, so a chatty process cannot grow memory. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit = STDERR_TAIL_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }

  toString(): string {
    const all = Buffer.concat(this.chunks);
    return all
      .subarray(Math.max(0, all.length - this.limit))
      .toString('utf8')
      .trim();
  }
}
