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
 * Names of public sounds starting with `prefix` (case-insensitive), the most downloaded first, each
 * name once (in the spelling of its most downloaded sound), at most `limit`. The planner walks the
 * downloads index for a common prefix (the first matches are soon met) and the name index for a rare
 * one (few matches to sort): both a few milliseconds at 1M sounds. Twice `limit` sounds are read,
 * so a name shared by many popular sounds can leave fewer than `limit` names.
 */
export async function suggestSoundNames(db: Db, prefix: string, limit: number): Promise<NameSuggestion[]> {
  const { rows } = await sql<{ name: string; num_downloads: number }>`
    select name, num_downloads from sound_search
    where ${range(sql`(lower(name) collate "C")`, prefix)}
    order by num_downloads desc, id
    limit ${limit * 2}`.execute(db);
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
