import { type Kysely, type RawBuilder, sql } from 'kysely';
import { textQuery } from './compile-filter.ts';
import { labelWeights } from './compile-query.ts';
import type { FilterNode } from './filter-ast.ts';
import type { PreparedSearch } from './prepare.ts';
import type { QueryClause } from './query-parser.ts';
import { TS_CONFIG } from './search-schema.ts';

/**
 * Exact counts read from the side structures that the search-side migration maintains
 * (search_term_df, search_term_pack, search_tag) instead of visiting every matching row.
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

/** Looks the clause's lexeme up; null when the clause is not one lexeme (several words, a stopword). */
export async function termStats(db: Kysely<any>, clause: QueryClause): Promise<TermStats | null> {
  const cfg = sql.lit(TS_CONFIG);
  const r = await sql<{ nodes: number; lexeme: string | null; ndoc: number | null; unpacked: number | null }>`
    with l as (
      select numnode(q) as nodes, (tsvector_to_array(to_tsvector(${cfg}, ${clause.text}::text)))[1] as lexeme
      from ${textQuery(clause.text, clause.phrase)} q
    )
    select l.nodes, l.lexeme, d.ndoc, d.ndoc_unpacked as unpacked
    from l left join search_term_df d on d.lexeme = l.lexeme`.execute(db);
  const row = r.rows[0];
  if (!row || Number(row.nodes) !== 1 || row.lexeme === null) return null;
  return { lexeme: row.lexeme, ndoc: Math.max(0, row.ndoc ?? 0), unpacked: Math.max(0, row.unpacked ?? 0) };
}

/** Exact number of pack groups of a one-lexeme query: its unpacked sounds plus the packs holding it. */
export async function termGroupCount(db: Kysely<any>, stats: TermStats): Promise<number> {
  const r = await sql<{
    n: number;
  }>`select count(*)::int as n from search_term_pack where lexeme = ${stats.lexeme}`.execute(db);
  return stats.unpacked + r.rows[0].n;
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
        const op = sql.raw(side === 'lo' ? (bound.inclusive ? '>=' : '>') : bound.inclusive ? '<=' : '<');
        bounds.push(sql<boolean>`t.duration ${op} ${bound.value}::float8`);
      }
      continue;
    }
    return null;
  }
  if (tag === null) return null;
  const where = [sql<boolean>`t.tag = lower(${tag}::text)`, ...bounds];
  return sql<{ n: number }>`select count(*)::int as n from search_tag t where ${sql.join(where, sql` and `)}`;
}

function flattenAnd(node: FilterNode): FilterNode[] {
  if (node.kind === 'and') return node.children.flatMap(flattenAnd);
  if (node.kind === 'all') return [];
  return [node];
}
