import { type RawBuilder, sql } from 'kysely';
import { type SearchParameter, SearchSyntaxError } from './errors.ts';
import { closeMatches, type FieldDef, filterFieldNames, lookupFilterField } from './fields.ts';
import { SEARCH_TABLE, STORE } from './search-schema.ts';

/**
 * Sorting by target values (`sort=bpm:120,pitch:440`, Freesound's API since December 2025): the
 * matches ordered by their Euclidean distance to the target point, computed on the raw values
 * (upstream sorts by Solr's `dist(2, fields…, values…) asc`, which normalizes nothing). A sound
 * lacking one of the target's values has no distance and comes after every sound that has one
 * (Solr would read the missing value as 0). Kept apart from the other orders: it joins the
 * descriptor row, which no other order reads.
 */

export interface SortTargetTerm {
  /** The name as written (an alias such as `ac_tempo` included). */
  readonly name: string;
  readonly field: FieldDef;
  readonly value: number;
}

export type SortTarget = readonly SortTargetTerm[];

/** More terms than any descriptor space a client would sort on; bounds the statement's size. */
export const MAX_SORT_TARGET_TERMS = 32;

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** A `sort` value naming target values rather than one of the fixed orders. */
export function isSortTarget(value: string | undefined): value is string {
  return value?.includes(':') === true;
}

/** The names a sort target may use: every numeric sound field and descriptor, aliases included. */
export function sortTargetFieldNames(): string[] {
  return filterFieldNames().filter((n) => isNumericField(lookupFilterField(n)));
}

function isNumericField(def: FieldDef | undefined): def is FieldDef {
  return def !== undefined && def.source !== 'comments' && (def.type === 'int' || def.type === 'float');
}

/** Parses `name:number[,name:number…]`; every problem is a SearchSyntaxError at its position. */
export function parseSortTarget(value: string, parameter: SearchParameter = 'sort'): SortTarget {
  const terms: SortTargetTerm[] = [];
  const columns = new Set<string>();
  let offset = 0;
  for (const piece of value.split(',')) {
    const at = value.indexOf(piece, offset);
    offset = at + piece.length;
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(\S*)\s*$/.exec(piece);
    if (!m) {
      throw new SearchSyntaxError(parameter, `"${piece.trim()}" is not "name:number"`, at);
    }
    const [, name, written] = m;
    const field = lookupFilterField(name);
    if (!isNumericField(field)) {
      const near = closeMatches(name, sortTargetFieldNames());
      const hint = near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : '';
      const what = field ? 'is not numeric' : 'is not a sound field or descriptor';
      throw new SearchSyntaxError(
        parameter,
        `"${name}" ${what}: a sort target names numeric fields or descriptors (such as bpm, pitch, duration)${hint}`,
        at,
      );
    }
    const target = Number(written);
    if (!NUMBER.test(written) || !Number.isFinite(target)) {
      throw new SearchSyntaxError(
        parameter,
        `the target value of "${name}" must be a number, not "${written}"`,
        at,
      );
    }
    if (columns.has(field.column)) {
      throw new SearchSyntaxError(parameter, `"${name}" is named twice`, at);
    }
    columns.add(field.column);
    terms.push({ name, field, value: target });
  }
  if (terms.length > MAX_SORT_TARGET_TERMS) {
    throw new SearchSyntaxError(parameter, `at most ${MAX_SORT_TARGET_TERMS} target values`, 0);
  }
  return terms;
}

/** The descriptor row's alias in the statement; the filter's own reads use theirs. */
const ROW = 'target_row';

/** The distance of the row `s` (and its descriptor row) to the target: null when a value is missing. */
function distance(target: SortTarget): RawBuilder<number | null> {
  const squares = target.map((t) => {
    const column = sql.ref(`${t.field.source === 'descriptor' ? ROW : 's'}.${t.field.column}`);
    return sql`power(${column}::float8 - ${t.value}::float8, 2)`;
  });
  return sql<number | null>`sqrt(${sql.join(squares, sql` + `)})`;
}

/**
 * The page of the matches `where` selects, nearest to the target first (ties and sounds without a
 * distance by id), with each row's distance and relevance (`rank`, over `s`; 0 for an empty query).
 */
export function targetPage(
  target: SortTarget,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number> | null,
  limit: number,
  offset: number,
): RawBuilder<{ id: number; distance: number | null; score: number }> {
  const table = sql.table(SEARCH_TABLE);
  const needsRow = target.some((t) => t.field.source === 'descriptor');
  const join = needsRow
    ? sql`left join ${sql.table(STORE.descriptors.table)} ${sql.id(ROW)}
          on ${sql.ref(`${ROW}.${STORE.descriptors.soundId}`)} = s.id`
    : sql``;
  return sql`select p.id, p.distance, ${rank ?? sql`0`}::float8 as score from (
      select s.id, ${distance(target)} as distance from ${table} s ${join}
      where ${where}
      order by distance asc nulls last, s.id asc limit ${limit} offset ${offset}) p
    join ${table} s on s.id = p.id
    order by p.distance asc nulls last, p.id asc`;
}

/**
 * One descriptor and nothing else to match (`sort=bpm:120` alone, the common case): the page
 * without reading every sound. The `offset + limit` nearest values on each side of the target come
 * from the descriptor's index (every descriptor column has one over its non-null values), walked
 * up from the target and down from it; the page is the nearest of both. When fewer sounds than
 * that have the value, the page goes on with the sounds without it, by id, as targetPage orders
 * them. Same answer as targetPage; null when the search is not of that shape.
 */
export function targetIndexPage(
  target: SortTarget,
  limit: number,
  offset: number,
): RawBuilder<{ id: number; distance: number | null; score: number }> | null {
  if (target.length !== 1 || target[0].field.source !== 'descriptor') return null;
  const { field, value } = target[0];
  const rows = sql.table(STORE.descriptors.table);
  const soundId = sql.ref(`d.${STORE.descriptors.soundId}`);
  const column = sql.ref(`d.${field.column}`);
  const table = sql.table(SEARCH_TABLE);
  const wanted = offset + limit;
  const side = (op: RawBuilder<unknown>, direction: RawBuilder<unknown>) =>
    sql`(select ${soundId} as id, ${column}::float8 - ${value}::float8 as diff from ${rows} d
      where ${column} ${op} ${value}::float8 and exists (select 1 from ${table} s where s.id = ${soundId})
      order by ${column} ${direction}, ${soundId} asc limit ${wanted})`;
  return sql`with v as materialized (
      ${side(sql.raw('>='), sql.raw('asc'))} union all ${side(sql.raw('<'), sql.raw('desc'))}
    ), p as materialized (
      select id, abs(diff) as distance from v order by abs(diff), id limit ${limit} offset ${offset}
    ), rest as (
      select s.id from ${table} s
      where (select count(*) from v) < ${wanted}
        and not exists (select 1 from ${rows} d where ${soundId} = s.id and ${column} is not null)
      order by s.id
      limit greatest(0, ${limit} - (select count(*) from p))
      offset greatest(0, ${offset} - (select count(*) from v))
    )
    select id, distance, 0::float8 as score from (
      select id, distance, 0 as part from p
      union all select id, null, 1 from rest
    ) page order by part, distance, id`;
}
