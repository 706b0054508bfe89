import { VersionedCache } from '../adapters/answer-cache.ts';
import { RenderedJson } from '../http/rendered-json.ts';
import type { ChangeVersion } from '../ports.ts';

/**
 * Rendered search pages, kept until the catalogue or the similarity state changes: a repeated
 * search (the same path, origin and query string, so the same links and fields) is answered with
 * the JSON text rendered the first time, without presenting and serialising 15 sounds again.
 * Identical concurrent requests share one rendering. Errors are not kept.
 */
export class SearchPageCache {
  private readonly pages: VersionedCache<RenderedJson>;

  constructor(
    private readonly changes: ChangeVersion | undefined,
    private readonly stateVersion: () => string,
    maxEntries = 2_000,
  ) {
    this.pages = new VersionedCache(maxEntries);
  }

  async answer<T>(
    request: { origin: string; path: string; rawQuery: Record<string, string> },
    compute: () => Promise<T>,
  ): Promise<T | RenderedJson> {
    const version = this.changes ? await this.changes.current() : undefined;
    if (version === undefined) return compute();
    const key = JSON.stringify([request.origin, request.path, request.rawQuery]);
    return this.pages.get(
      key,
      `${version}:${this.stateVersion()}`,
      async () => new RenderedJson(await compute()),
    );
  }
}
