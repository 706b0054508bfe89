/**
 * A response body already serialized as JSON, kept with the value it came from so the other
 * formats (XML, YAML) can still be rendered. Lets a handler reuse a body it answered recently
 * without building and stringifying it again (the sound instance, the busiest resource).
 */
export class RenderedJson {
  /**
   * The UTF-8 bytes, encoded once: a string body is measured (Content-Length) and encoded again
   * on every write, which for a 20 kB page (version 1's 15 full-link records) cost about as much
   * as the rest of the hot path's request together.
   */
  readonly bytes: Buffer;
  constructor(readonly value: unknown) {
    this.bytes = Buffer.from(JSON.stringify(value));
  }

  get json(): string {
    return this.bytes.toString('utf8');
  }
}
