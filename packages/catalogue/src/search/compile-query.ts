import { type RawBuilder, sql } from 'kysely';
import { type Condition, textQuery } from './compile-filter.ts';
import type { FieldWeights } from './params.ts';
import type { QueryClause, TextQuery } from './query-parser.ts';

/** A text query as SQL over the search document `s`: which sounds match and how they score. */
export interface CompiledTextQuery {
  /** Every sound matches (no clause). */
  readonly matchesAll: boolean;
  readonly match: Condition;
  readonly rank: RawBuilder<number>;
}

/**
 * The document vector carries four weight classes: A = tags, B = description, C = name and pack
 * name, D = username. ts_rank takes one weight per class ({D, C, B, A}), so the request's field
 * weights become those four numbers (name and pack share C: it gets the larger of the two).
 */
export function labelWeights(w: FieldWeights): { ranks: number[]; labels: string[] } {
  const perLabel = { a: w.tag, b: w.description, c: Math.max(w.name, w.pack), d: w.username };
  const top = Math.max(perLabel.a, perLabel.b, perLabel.c, perLabel.d, w.id, 1);
  const ranks = [perLabel.d, perLabel.c, perLabel.b, perLabel.a].map((x) => x / top);
  const labels = (['a', 'b', 'c', 'd'] as const).filter((l) => perLabel[l] > 0);
  return { ranks, labels };
}

export function compileTextQuery(query: TextQuery, weights: FieldWeights): CompiledTextQuery {
  const must = query.clauses.filter((c) => c.occur === 'must');
  const not = query.clauses.filter((c) => c.occur === 'not');
  if (must.length === 0 && not.length === 0) {
    return { matchesAll: true, match: sql<boolean>`true`, rank: sql<number>`0::float4` };
  }
  const { ranks, labels } = labelWeights(weights);
  const restricted = labels.length < 4;
  // Searching only some fields: the index finds candidates on the whole vector, then the vector
  // filtered to the chosen weight classes decides.
  const vector = restricted ? sql`ts_filter(s.tsv, ${`{${labels.join(',')}}`}::"char"[])` : sql`s.tsv`;
  const matches = (tsq: RawBuilder<unknown>): Condition =>
    restricted ? sql<boolean>`(s.tsv @@ ${tsq} and ${vector} @@ ${tsq})` : sql<boolean>`s.tsv @@ ${tsq}`;

  if (must.length === 0) {
    // Only prohibited terms: everything except what they match.
    return { matchesAll: false, match: excludes(not, matches), rank: sql<number>`0::float4` };
  }

  const full = combine(must, not);
  let match = matches(full);
  const idWeight =
    weights.id /
    Math.max(weights.id, weights.tag, weights.description, weights.name, weights.pack, weights.username, 1);
  const ids: number[] = [];
  if (weights.id > 0) {
    // A number in the query also matches the sound with that id (upstream searches the id field):
    // that term is then satisfied by the id, and the other clauses must still hold.
    const alternatives: Condition[] = [];
    must.forEach((c, i) => {
      // A few id terms at most: each adds a copy of the other clauses to the statement.
      if (c.phrase || !/^\d{1,9}$/.test(c.text) || Number(c.text) > 2_147_483_647 || ids.length >= 4) return;
      const id = Number(c.text);
      ids.push(id);
      const others = must.filter((_, j) => j !== i);
      const rest = others.length ? matches(combine(others, not)) : excludes(not, matches);
      alternatives.push(sql<boolean>`(s.id = ${id} and ${rest})`);
    });
    if (alternatives.length) match = sql<boolean>`(${match} or ${sql.join(alternatives, sql` or `)})`;
  }
  const base = sql<number>`ts_rank(${`{${ranks.join(',')}}`}::float4[], ${vector}, ${full})`;
  const rank = ids.length
    ? sql<number>`(${base} + case when s.id in (${sql.join(ids)}) then ${idWeight}::float4 else 0 end)`
    : base;
  return { matchesAll: false, match, rank };
}

function clauseQuery(c: QueryClause): RawBuilder<unknown> {
  return textQuery(c.text, c.phrase);
}

function combine(must: readonly QueryClause[], not: readonly QueryClause[]): RawBuilder<unknown> {
  const parts = [...must.map(clauseQuery), ...not.map((c) => sql`!!${clauseQuery(c)}`)];
  return sql`(${sql.join(parts, sql` && `)})`;
}

/** None of the prohibited clauses matches (true when there are none). */
function excludes(not: readonly QueryClause[], matches: (q: RawBuilder<unknown>) => Condition): Condition {
  if (!not.length) return sql<boolean>`true`;
  const any = sql.join(
    not.map((c) => clauseQuery(c)),
    sql` || `,
  );
  return sql<boolean>`not (${matches(sql`(${any})`)})`;
}
