import { type PageRequest, prepareV1Search } from '@earshot/catalogue';
import { unsharp, ValidationError } from '@earshot/common';
import { type ListWalks, WALK_MAX_SOUNDS } from '../list-walks.ts';
import type { Hits, SearchEngine } from '../ports.ts';
import { checkDescriptorsFilter } from '../search.ts';
import type { SoundRecords } from '../sound-records.ts';
import { type V1ListRequest, v1Window } from './paging.ts';
import { type V1SoundPageRecord, v1Page } from './records.ts';

export interface V1SearchParams {
  q?: string;
  f?: string;
  s?: string;
  g?: string;
}

export interface V1ContentSearchParams {
  t?: string;
  f?: string;
  max_results?: string;
}

export const V1_MAX_RESULTS = 15;

/**
 * Version 1 sound search and content search: the parameters checked by the catalogue's version 1
 * parser (so errors name `q`, `f`, `s`), then run by the very engine version 2 searches with, and
 * walked by cursor through the same list walks.
 */
export class LegacySearch {
  constructor(
    private readonly engine: SearchEngine,
    private readonly records: SoundRecords,
    private readonly walks: ListWalks,
  ) {}

  /**
   * A grouped search's sounds in a pack each carry `samePack` (a pack's only match counts 1); the
   * others none.
   */
  async search(params: V1SearchParams, req: V1ListRequest): Promise<V1SoundPageRecord> {
    const q = params.q === undefined || params.q.trim() === '' ? '+' : params.q;
    const f = params.f?.trim() ? params.f : undefined;
    const prepared = prepareV1Search({
      q,
      f,
      s: params.s,
      g: params.g,
      p: 1,
      soundsPerPage: req.page.perPage,
    });
    const run = (window: PageRequest & { maxLimit?: number }) =>
      this.engine.text({
        query: q,
        filter: f,
        sort: params.s || undefined,
        groupByPack: prepared.groupByPack,
        ...window,
      });
    const withPackCounts = (records: V1SoundPageRecord['items']) =>
      records.map((record) => {
        if (!prepared.groupByPack || record.sound.pack_name === null) return record;
        return { ...record, samePack: { ...record.samePack, count: record.samePack?.count ?? 1 } };
      });
    if (req.cursor !== undefined) {
      const walk = await this.walks.page(req.cursor, req.page.perPage, {
        key: JSON.stringify(['v1-search', q, f ?? null, params.s || null, prepared.groupByPack]),
        max: WALK_MAX_SOUNDS,
        all: (limit) => run({ limit, offset: 0, maxLimit: limit }),
      });
      const sounds = withPackCounts(await this.records.read(walk.hits.items));
      return v1Page(req.page, walk.hits.count, sounds, walk.cursors);
    }
    const hits = await run(v1Window(req.page));
    return v1Page(req.page, hits.count, withPackCounts(await this.records.read(hits.items)));
  }

  /**
   * Content search: `t` sorts by closeness to a descriptor target, `f` restricts by descriptors
   * (or, without dotted names, by the text filter fields); at most `max_results` sounds are
   * listed. Without a target the matches come by id ascending.
   */
  async content(params: V1ContentSearchParams, req: V1ListRequest): Promise<V1SoundPageRecord> {
    const target = params.t?.trim() ? legacyDescriptorNames(params.t) : undefined;
    const f = params.f?.trim() ? legacyDescriptorNames(params.f) : undefined;
    if (target === undefined && f === undefined) {
      throw new ValidationError('Introduce either a target, a filter or both.');
    }
    const maxResults = readMaxResults(params.max_results);
    const byDescriptors = f !== undefined && namesDescriptors(params.f ?? '');
    const descriptorsFilter = byDescriptors ? checkDescriptorsFilter(f, this.engine) : undefined;
    const run = (window: PageRequest): Promise<Hits> =>
      this.engine.content({
        target,
        descriptorsFilter,
        filter: byDescriptors ? undefined : f,
        ...window,
      });
    if (req.cursor !== undefined) {
      const walk = await this.walks.page(req.cursor, req.page.perPage, {
        key: JSON.stringify(['v1-content', target ?? null, f ?? null, maxResults]),
        max: Math.min(maxResults, WALK_MAX_SOUNDS),
        all: (limit) => run({ limit, offset: 0 }),
      });
      return v1Page(req.page, walk.hits.count, await this.records.read(walk.hits.items), walk.cursors);
    }
    const window = v1Window(req.page);
    if (window.offset >= maxResults) {
      const { count } = await run({ limit: 1, offset: 0 });
      return v1Page(req.page, Math.min(count, maxResults), []);
    }
    const hits = await run({
      limit: Math.min(window.limit, maxResults - window.offset),
      offset: window.offset,
    });
    return v1Page(req.page, Math.min(hits.count, maxResults), await this.records.read(hits.items));
  }
}

function readMaxResults(raw: string | undefined): number {
  if (raw === undefined || raw === '') return V1_MAX_RESULTS;
  if (!/^\s*\d{1,9}\s*$/.test(raw) || Number(raw) < 1) {
    throw new ValidationError(
      `Invalid value for parameter 'max_results': "${raw}" is not a positive integer.`,
    );
  }
  return Number(raw);
}

/** Version 1 descriptor names begin with a dot (`.lowlevel.pitch.mean`) and spell `#` as `sharp`. */
export function legacyDescriptorNames(text: string): string {
  return text
    .replace(/(^|[\s(])\.(?=[A-Za-z_])/g, '$1')
    .replace(/"([^"]*)"/g, (_m, value: string) => `"${unsharp(value)}"`);
}

const namesDescriptors = (text: string) => /(^|[\s(])\.[A-Za-z_]/.test(text);
