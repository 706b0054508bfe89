import type { Facets } from '@earshot/catalogue';
import type { ExampleNote, Page, SoundRecord, WalkCursors } from '../../application/records.ts';
import type { CombinedResults } from '../../application/search.ts';
import {
  cursorLink,
  encodeQuery,
  type LinkBase,
  type PageEnvelope,
  pageEnvelope,
  pageLink,
} from './pagination.ts';
import type { SoundJson } from './schemas.ts';
import { type SoundContext, serializeSound } from './sound.ts';

/**
 * The version 2 answers made of sound records: one sound, a page of them with links to the
 * neighbouring pages, combined search's `more`. Records come from the use cases, already read.
 */

/** One sound of a list; a grouped search's sound says how many of its pack matched. */
export function presentSound(record: SoundRecord, ctx: SoundContext): SoundJson {
  const sound = serializeSound(record, ctx);
  if (record.samePack) sound.n_from_same_pack = record.samePack.count;
  return sound;
}

/** A page of sounds with links to the pages around it. */
export function presentSoundPage(
  links: LinkBase,
  page: Page<SoundRecord>,
  ctx: SoundContext,
): PageEnvelope<SoundJson> {
  const results = page.items.map((record) => presentSound(record, ctx));
  return soundsPage(links, page.page, page.pageSize, page.count, results, page.cursors);
}

/** Text search's page: a grouped sound also links to all the matches of its pack. */
export function presentTextSearch(
  links: LinkBase,
  page: Page<SoundRecord>,
  ctx: SoundContext,
): PageEnvelope<SoundJson> & { facets?: Facets } {
  const results = page.items.map((record) => {
    const sound = presentSound(record, ctx);
    if (record.samePack?.grouping) sound.more_from_same_pack = morePackLink(links, record.samePack.grouping);
    return sound;
  });
  const envelope = soundsPage(links, page.page, page.pageSize, page.count, results, page.cursors);
  // Only when asked for: without `facets` the answer is the contract's envelope, unchanged.
  return page.facets ? { ...envelope, facets: page.facets } : envelope;
}

/** Content search's page, with what a search by example adds. */
export function presentContentSearch(
  links: LinkBase,
  page: Page<SoundRecord> & ExampleNote,
  ctx: SoundContext,
): PageEnvelope<SoundJson> & ExampleJson {
  return { ...presentSoundPage(links, page, ctx), ...exampleJson(page) };
}

/** Combined search: `results` and `more` (a link to the following results, null at the end), no count. */
export function presentCombinedSearch(links: LinkBase, answer: CombinedResults, ctx: SoundContext) {
  return {
    results: answer.items.map((record) => presentSound(record, ctx)),
    more: answer.cursors
      ? answer.cursors.next === null
        ? null
        : cursorLink(links, answer.cursors.next)
      : answer.more
        ? pageLink(links, answer.page + 1)
        : null,
    ...exampleJson(answer),
  };
}

/** What a search by `audio_file` adds to its answer (an earshot extension). */
export interface ExampleJson {
  note?: string;
  analyzed_seconds?: number;
}

function exampleJson(example: ExampleNote): ExampleJson {
  const out: ExampleJson = {};
  if (example.note) out.note = example.note;
  if (example.analyzedSeconds !== undefined) out.analyzed_seconds = example.analyzedSeconds;
  return out;
}

/**
 * Only the sounds that could be presented. The use cases already leave out a hit whose sound could
 * not be read (`SoundRecords`); a page never shows a null either.
 */
export function readableSounds(results: ReadonlyArray<SoundJson | null>): SoundJson[] {
  return results.filter((sound): sound is SoundJson => sound !== null);
}

/** The envelope of a page of presented sounds; a null is left out of the results and of the count. */
export function soundsPage(
  base: LinkBase,
  page: number,
  pageSize: number,
  count: number,
  results: ReadonlyArray<SoundJson | null>,
  cursors?: WalkCursors,
): PageEnvelope<SoundJson> {
  const readable = readableSounds(results);
  // A walk's count is its length on every page (SoundRecords.walkPage).
  const shown = cursors ? count : count - (results.length - readable.length);
  return pageEnvelope(base, page, pageSize, shown, readable, cursors);
}

/** Grouped results link to all matches of their pack: same search, the pack as the only filter. */
function morePackLink(links: LinkBase, packGrouping: string): string {
  const q = links.query;
  const entries: Array<[string, string]> = [['query', q.query ?? '']];
  entries.push(['filter', `pack_grouping:"${packGrouping}"`]);
  if (q.sort) entries.push(['sort', q.sort]);
  if (q.page_size) entries.push(['page_size', q.page_size]);
  if (q.fields) entries.push(['fields', q.fields]);
  entries.push(['group_by_pack', '0']);
  // Like page links, the link works as given when the key came in the query.
  if (q.token) entries.push(['token', q.token]);
  return `${links.origin}${links.path}${encodeQuery(entries)}`;
}
