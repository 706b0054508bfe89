import { RenderedJson } from '../framework/http/rendered-json.ts';

/**
 * Remembers rendered bodies for `ttlMs` by a key the handler builds from everything the body
 * depends on. Oldest entries go first when full; `ttlMs` 0 keeps nothing.
 */
export class RenderedCache {
  private readonly entries = new Map<string, { at: number; body: RenderedJson }>();
  /** Bumped by clear(): a value computed before a clear is not stored after it. */
  private cleared = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 20_000,
  ) {}

  get(key: string): RenderedJson | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (Date.now() - hit.at < this.ttlMs) return hit.body;
    this.entries.delete(key);
    return undefined;
  }

  clear(): void {
    this.entries.clear();
    this.cleared++;
  }

  /** Take it before reading what you will render; pass it to remember(). */
  get generation(): number {
    return this.cleared;
  }

  remember(key: string, value: unknown, generation = this.cleared): RenderedJson {
    const body = new RenderedJson(value);
    if (this.ttlMs <= 0 || generation !== this.cleared) return body;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { at: Date.now(), body });
    return body;
  }
}
