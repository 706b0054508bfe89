import { type Kysely, type RawBuilder, sql } from 'kysely';
import { boundOp, descriptorRowCondition, textQuery } from './compile-filter.ts';
import { labelWeights } from './compile-query.ts';
import type { FilterNode, RangeBound } from './filter-ast.ts';
import type { PreparedSearch } from './prepare.ts';
import type { QueryClause } from './query-parser.ts';
import { SEARCH_TABLE, STORE, TS_CONFIG } from './search-schema.ts';
import { prepared } from './statement.ts';

/**
 * Exact counts read from the side structures that the search-side migrations maintain
 * (search_term_df, search_term_pack, search_tag, search_duration_hist, search_hidden_descriptors)
 * instead of visiting every matching row.
 * Each function answers only for the query shapes where the side structure is exactly the
 * answer, and returns null otherwise (the caller then counts the plain way).
 */

/** Document frequency of the single lexeme a one-word query reduces to. */
export interface TermStats {
  readonly lexeme: string;
  /** Visible sounds containing the lexeme: the exact count of the query. */
  readonly ndoc: number;
  /** Of those, the ones without a pack (each is its own group under group_by_pack). */
  readonly unpacked: number;
  /** Packs holding at least one of them: with `unpacked`, the exact number of groups. */
  readonly npacks: number;
}

/**
 * The clause of a query whose matches are exactly the sounds containing one lexeme: a single
 * required word (or one-word phrase), no prohibited clause, every field searched, and no id
 * alternative (a number would also match the sound with that id).
 */
export function singleTermClause(search: PreparedSearch): QueryClause | null {
  const clauses = search.query.clauses;
  if (clauses.length !== 1 || clauses[0].occur !== 'must') return null;
  if (labelWeights(search.weights).labels.length !== 4) return null;
  if (search.weights.id > 0 && /^\d{1,9}$/.test(clauses[0].text)) return null;
  return clauses[0];
}

/** The raw statistics row of a clause (always one row): how many query nodes, its lexeme and its df row. */
interface TermStatsRow {
  nodes: number;
  lexeme: string | null;
  ndoc: number;
  unpacked: number;
  npacks: number;
}

/** One row: the clause's number of query nodes, its first lexeme and that lexeme's df figures (0 when absent). */
function termStatsSelect(clause: QueryClause): RawBuilder<TermStatsRow> {
  const cfg = sql.lit(TS_CONFIG);
  return sql<TermStatsRow>`select l.nodes, l.lexeme, coalesce(d.ndoc, 0) as ndoc,
      coalesce(d.ndoc_unpacked, 0) as unpacked, coalesce(d.npacks, 0) as npacks
    from (
      select numnode(q)::int as nodes, (tsvector_to_array(to_tsvector(${cfg}, ${clause.text}::text)))[1] as lexeme
      from ${textQuery(clause.text, clause.phrase)} q
    ) l left join search_term_df d on d.lexeme = l.lexeme`;
}

/** The statistics, when the clause is one lexeme (not several words, not a stopword). */
function termStatsOf(row: TermStatsRow | undefined): TermStats | null {
  if (!row || Number(row.nodes) !== 1 || row.lexeme === null) return null;
  const n = (x: number | null) => Math.max(0, Number(x ?? 0));
  return { lexeme: row.lexeme, ndoc: n(row.ndoc), unpacked: n(row.unpacked), npacks: n(row.npacks) };
}

/** Looks the clause's lexeme up; null when the clause is not one lexeme (several words, a stopword). */
export async function termStats(db: Kysely<any>, clause: QueryClause): Promise<TermStats | null> {
  const r = await prepared(termStatsSelect(clause)).execute(db);
  return termStatsOf(r.rows[0]);
}

/**
 * An upper bound on a search's matches from the df rows: every match holds the lexeme of each
 * required clause that is one lexeme, so it is at most the smallest of their document
 * frequencies. Null when no required clause is one lexeme. A number while the id is weighted is
 * left out (it also matches the sound with that id, which may not hold the word).
 */
export async function requiredTermsBound(db: Kysely<any>, search: PreparedSearch): Promise<number | null> {
  const clauses = search.query.clauses.filter(
    (c) => c.occur === 'must' && !(search.weights.id > 0 && /^\d{1,9}$/.test(c.text)),
  );
  if (!clauses.length) return null;
  const rows = sql.join(clauses.map(termStatsSelect), sql` union all `);
  const r = await prepared(sql<{ bound: number | null }>`select min(t.ndoc)::int as bound
    from (${rows}) t where t.nodes = 1 and t.lexeme is not null`).execute(db);
  const bound = r.rows[0]?.bound;
  return bound === null || bound === undefined ? null : Number(bound);
}

/**
 * The exact count statement that a side structure answers for this search, or null when the
 * search has another shape (the caller then counts matching rows).
 */
export function sideCount(search: PreparedSearch): RawBuilder<{ n: number }> | null {
  return tagDurationCount(search) ?? durationCount(search) ?? descriptorCount(search);
}

/**
 * An exact count statement for a filter that is one `tag:X` ANDed with duration ranges (and no
 * text query), answered by an index-only scan of search_tag; null for any other shape.
 */
export function tagDurationCount(search: PreparedSearch): RawBuilder<{ n: number }> | null {
  if (search.query.clauses.length || !search.filter) return null;
  const parts = flattenAnd(search.filter);
  let tag: string | null = null;
  const bounds: RawBuilder<boolean>[] = [];
  for (const node of parts) {
    if (node.kind === 'match' && node.field.kind === 'field' && node.field.def.type === 'tags') {
      if (node.value.type !== 'string' || tag !== null) return null;
      tag = node.value.value;
      continue;
    }
    if (node.kind === 'range' && node.field.kind === 'field' && node.field.def.column === 'duration') {
      for (const [bound, side] of [
        [node.lower, 'lo'],
        [node.upper, 'hi'],
      ] as const) {
        if (!bound) continue;
        if (typeof bound.value !== 'number') return null;
        bounds.push(sql<boolean>`t.duration ${boundOp(side, bound.inclusive)} ${bound.value}::float8`);
      }
      continue;
    }
    return null;
  }
  if (tag === null) return null;
  const where = [sql<boolean>`t.tag = lower(${tag}::text)`, ...bounds];
  return sql<{ n: number }>`select count(*)::int as n from search_tag t where ${sql.join(where, sql` and `)}`;
}

/**
 * Counts a search without text query whose filter is only duration ranges (or absent: every
 * visible sound) from search_duration_hist: the buckets strictly between the bounds' buckets are
 * summed, the (at most two) edge buckets are counted row by row through the duration index.
 * Bucket functions are monotonic, so a bucket strictly between the edges lies inside the range.
 */
export function durationCount(search: PreparedSearch): RawBuilder<{ n: number }> | null {
  if (search.query.clauses.length) return null;
  let lo: RangeBound | null = null;
  let hi: RangeBound | null = null;
  for (const node of search.filter ? flattenAnd(search.filter) : []) {
    if (node.kind !== 'range' || node.field.kind !== 'field' || node.field.def.column !== 'duration')
      return null;
    if (node.field.def.source !== 'sound') return null;
    for (const b of [node.lower, node.upper]) if (b && typeof b.value !== 'number') return null;
    lo = tighter(lo, node.lower, 1);
    hi = tighter(hi, node.upper, -1);
  }
  const bucket = (b: RangeBound) => sql`search_duration_bucket(${b.value as number}::float8)`;
  const inRange: RawBuilder<boolean>[] = [];
  if (lo) inRange.push(sql<boolean>`s.duration ${boundOp('lo', lo.inclusive)} ${lo.value as number}::float8`);
  if (hi) inRange.push(sql<boolean>`s.duration ${boundOp('hi', hi.inclusive)} ${hi.value as number}::float8`);
  const middle: RawBuilder<boolean>[] = [sql<boolean>`true`];
  if (lo) middle.push(sql<boolean>`h.bucket > ${bucket(lo)}`);
  if (hi) middle.push(sql<boolean>`h.bucket < ${bucket(hi)}`);
  // The bucket's own bounds (slightly widened) let the duration index find its rows; the bucket
  // comparison then keeps exactly them.
  const edge = (k: RawBuilder<unknown>, extra: RawBuilder<boolean>) => sql<number>`(select count(*)
    from ${sql.table(SEARCH_TABLE)} s
    where ${extra} and s.duration >= search_duration_bucket_start(${k}) and s.duration <= search_duration_bucket_end(${k})
      and search_duration_bucket(s.duration) = ${k} and ${sql.join([sql<boolean>`true`, ...inRange], sql` and `)})`;
  const parts: RawBuilder<number>[] = [
    sql<number>`coalesce((select sum(h.n) from search_duration_hist h where ${sql.join(middle, sql` and `)}), 0)`,
  ];
  if (lo) parts.push(edge(bucket(lo), sql<boolean>`true`));
  if (hi)
    parts.push(edge(bucket(hi), lo ? sql<boolean>`${bucket(hi)} <> ${bucket(lo)}` : sql<boolean>`true`));
  return sql<{ n: number }>`select (${sql.join(parts, sql` + `)})::int as n`;
}

/** The narrower of two bounds on the same side (side 1 = lower, -1 = upper). */
function tighter(a: RangeBound | null, b: RangeBound | null, side: 1 | -1): RangeBound | null {
  if (!a) return b;
  if (!b) return a;
  const [x, y] = [a.value as number, b.value as number];
  if (x === y) return { value: x, inclusive: a.inclusive && b.inclusive };
  return (x - y) * side > 0 ? a : b;
}

/**
 * Counts a search without text query whose filter is only positive conditions on typed
 * descriptor columns: the matching descriptor rows (an index-only scan for one range) minus
 * those of sounds without a search document (search_hidden_descriptors, few).
 */
export function descriptorCount(search: PreparedSearch): RawBuilder<{ n: number }> | null {
  if (search.query.clauses.length || !search.filter) return null;
  const conditions: RawBuilder<boolean>[] = [];
  for (const node of flattenAnd(search.filter)) {
    const c = descriptorRowCondition(node);
    if (!c) return null;
    conditions.push(c);
  }
  if (!conditions.length) return null;
  const where = sql.join(conditions, sql` and `);
  const d = sql.table(STORE.descriptors.table);
  return sql<{ n: number }>`select ((select count(*) from ${d} d where ${where})
    - (select count(*) from search_hidden_descriptors h join ${d} d on d.${sql.ref(STORE.descriptors.soundId)} = h.sound_id
       where ${where}))::int as n`;
}

function flattenAnd(node: FilterNode): FilterNode[] {
  if (node.kind === 'and') return node.children.flatMap(flattenAnd);
  if (node.kind === 'all') return [];
  return [node];
}
