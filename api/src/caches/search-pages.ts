import type { ChangeVersion } from '@earshot/catalogue';
import { RenderedJson } from '../framework/http/rendered-json.ts';
import { versionInScope } from '../framework/http/request-version.ts';
import { changeVersionNow, VersionedCache } from './answer-cache.ts';

/**
 * Rendered search pages, kept until the catalogue or the similarity state changes: a repeated
 * search (the same path, origin and query string, so the same links and fields) is answered with
 * the JSON text rendered the first time, without presenting and serializing 15 sounds again.
 * Identical concurrent requests share one rendering. Errors are not kept.
 */
export class SearchPageCache {
  private readonly pages: VersionedCache<RenderedJson>;

  constructor(
    private readonly changes: ChangeVersion | undefined,
    private readonly stateVersion: () => string,
    maxEntries = 2_000,
    maxBytes = 64 * 1024 * 1024,
  ) {
    this.pages = new VersionedCache(maxEntries, (page) => page.bytes.length, maxBytes);
  }

  /**
   * The catalogue's change version now and the page already rendered for this exact request under
   * it and the current state, if any; for the hot path, which serves the page without the
   * application, or else computes it under that version (versionInScope: a round trip that
   * started after the request arrived, all the caches below need). No version: nothing is kept.
   */
  async peek(request: SearchPageRequest): Promise<{ version?: number; page?: RenderedJson }> {
    const version = await changeVersionNow(this.changes);
    if (version === undefined) return {};
    return { version, page: this.pages.peek(pageKey(request), `${version}:${this.stateVersion()}`) };
  }

  async answer<T>(request: SearchPageRequest, compute: () => Promise<T>): Promise<T | RenderedJson> {
    const version = await changeVersionNow(this.changes);
    if (version === undefined) return compute();
    return this.pages.get(
      pageKey(request),
      `${version}:${this.stateVersion()}`,
      async () => new RenderedJson(await versionInScope.run(version, compute)),
    );
  }
}

/** What a search page's body depends on besides the versions (the query string gives the links). */
export interface SearchPageRequest {
  origin: string;
  path: string;
  rawQuery: Record<string, string>;
}

function pageKey(request: SearchPageRequest): string {
  return JSON.stringify([request.origin, request.path, request.rawQuery]);
}
