import { sql } from 'kysely';
import type { Db } from '../repositories/shared.ts';

/** A tag that completes a prefix, with the number of public sounds carrying it. */
export interface TagSuggestion {
  tag: string;
  sounds: number;
}

/** A public sound's name that completes a prefix, with the downloads of its most downloaded sound. */
export interface NameSuggestion {
  name: string;
  numDownloads: number;
}

/**
 * The first text after every text that starts with `prefix` in the "C" collation (code point
 * order): the prefix with its last code point moved one on. Undefined when there is none.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    let next = (points.pop() as string).codePointAt(0)! + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next);
  }
  return undefined;
}

function range(column: ReturnType<typeof sql>, prefix: string) {
  const end = prefixEnd(prefix);
  return end === undefined ? sql`${column} >= ${prefix}` : sql`${column} >= ${prefix} and ${column} < ${end}`;
}

/**
 * The tags starting with `prefix` (lower-cased, as tags are kept), most used first (by public
 * sounds carrying them; ties in code point order), at most `limit`.
 */
export async function suggestTags(db: Db, prefix: string, limit: number): Promise<TagSuggestion[]> {
  const { rows } = await sql<{ tag: string; n: number }>`
    select tag, n from search_tag_use
    where ${range(sql`tag`, prefix)}
    order by n desc, tag
    limit ${limit}`.execute(db);
  return rows.map((r) => ({ tag: r.tag, sounds: Number(r.n) }));
}

/**
 * How much the name completions read: `range`, sounds in name order from the start of a prefix's
 * range (all of a rarer prefix's); `popular`, the most downloaded sounds, among which a common
 * prefix's completions are looked for.
 */
export interface NameReads {
  range: number;
  popular: number;
}

const NAME_READS: NameReads = { range: 5_000, popular: 20_000 };

interface NameRow {
  name: string;
  num_downloads: number;
  id: number;
}

/**
 * Names of public sounds starting with `prefix` (case-insensitive), the most downloaded first, each
 * name once (in the spelling of its most downloaded sound), at most `limit`. Two bounded reads, each
 * an index-only scan (migration `*-suggest-covering`), so no prefix costs more than a few ms at 1M:
 * - the prefix's range in name order, at most `reads.range` sounds: when the range holds no more,
 *   that is every sound with the prefix, and the ranking is exact;
 * - else the prefix's sounds among the `reads.popular` most downloaded: when they are 2 × `limit`,
 *   the ranking is exact too (every other sound with the prefix has no more downloads).
 * A prefix with more than `reads.range` sounds but fewer than 2 × `limit` among the most
 * downloaded gets the best of both reads: its most downloaded sounds among those first in name
 * order may be missed. Twice `limit` sounds are kept, so a name shared by many popular sounds can
 * leave fewer than `limit` names.
 */
export async function suggestSoundNames(
  db: Db,
  prefix: string,
  limit: number,
  reads: NameReads = NAME_READS,
): Promise<NameSuggestion[]> {
  const wanted = limit * 2;
  const inRange = range(sql`(lower(name) collate "C")`, prefix);
  const ranged = await sql<NameRow & { read: number }>`
    select name, num_downloads, id, count(*) over ()::int as read from (
      select name, num_downloads, id from sound_search where ${inRange}
      order by (lower(name) collate "C") limit ${reads.range}
    ) r
    order by num_downloads desc, id
    limit ${wanted}`.execute(db);
  let rows: NameRow[] = ranged.rows;
  if ((ranged.rows[0]?.read ?? 0) >= reads.range) {
    const popular = await sql<NameRow>`
      select name, num_downloads, id from (
        select name, num_downloads, id from sound_search order by num_downloads desc, id limit ${reads.popular}
      ) p
      where ${inRange}
      order by num_downloads desc, id
      limit ${wanted}`.execute(db);
    rows =
      popular.rows.length >= wanted
        ? popular.rows
        : [...new Map([...popular.rows, ...ranged.rows].map((r) => [r.id, r])).values()]
            .sort((a, b) => Number(b.num_downloads) - Number(a.num_downloads) || Number(a.id) - Number(b.id))
            .slice(0, wanted);
  }
  const seen = new Set<string>();
  const names: NameSuggestion[] = [];
  for (const r of rows) {
    const key = r.name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    names.push({ name: r.name, numDownloads: Number(r.num_downloads) });
    if (names.length === limit) break;
  }
  return names;
}
