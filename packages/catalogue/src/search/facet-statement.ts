import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type FacetCount, type FacetName, type FacetRequest, type Facets, licenseValue } from './facets.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { prepared } from './statement.ts';

/**
 * The facets of a search PostgreSQL answers (the posting index counts its own: posting-facets.ts):
 * the matches are read once into a materialized set holding only the columns the facets group
 * by, and each facet is one grouping of it that keeps its own top values (a top-N sort of its
 * groups, not one sort of every group of every facet). Each grouping counts exactly what its
 * filter (facetFilter) selects: tags as the case-insensitive whole tag (the document's tags are
 * lower-cased; a tag twice on a sound counts once), license, type and username
 * case-insensitively, packs by id, the others by value; a sound without a value is in no group.
 * Within a facet, values go by count descending, then by value (bytewise for text).
 */

/**
 * Per facet: the columns it reads, its grouping over the matches `m` (facet, value, num, n), and
 * what orders two groups of equal count (the value's expression: output names cannot be used in
 * an ordering expression).
 */
const GROUPINGS: Record<
  FacetName,
  { columns: string[]; grouping: RawBuilder<unknown>; ties: RawBuilder<unknown> }
> = {
  tags: {
    columns: ['tags'],
    // Each tag of a sound once: at its first place in the sound's list (unnested beside its
    // places in the select list, which reads each list once without a function scan per sound).
    grouping: sql`select 'tags' as facet, x.t as value, null::int as num, count(*)::int as n
      from (select unnest(m.tags) as t, generate_subscripts(m.tags, 1) as i, m.tags from m) x
      where array_position(x.tags, x.t) = x.i group by x.t`,
    ties: sql`x.t collate "C"`,
  },
  license: {
    columns: ['license'],
    grouping: sql`select 'license' as facet, lower(license) as value, null::int as num, count(*)::int as n from m
      where license <> '' group by lower(license)`,
    ties: sql`lower(license) collate "C"`,
  },
  type: {
    columns: ['type'],
    grouping: sql`select 'type' as facet, lower(type) as value, null::int as num, count(*)::int as n from m
      where type <> '' group by lower(type)`,
    ties: sql`lower(type) collate "C"`,
  },
  category: {
    columns: ['category'],
    grouping: sql`select 'category' as facet, category as value, null::int as num, count(*)::int as n from m
      where category <> '' group by category`,
    ties: sql`category collate "C"`,
  },
  subcategory: {
    columns: ['subcategory'],
    grouping: sql`select 'subcategory' as facet, subcategory as value, null::int as num, count(*)::int as n from m
      where subcategory <> '' group by subcategory`,
    ties: sql`subcategory collate "C"`,
  },
  username: {
    columns: ['username'],
    grouping: sql`select 'username' as facet, min(username) as value, null::int as num, count(*)::int as n from m
      where username <> '' group by lower(username)`,
    ties: sql`min(username) collate "C"`,
  },
  pack: {
    columns: ['pack_id', 'pack_name'],
    grouping: sql`select 'pack' as facet, pack_id || '_' || min(pack_name) as value, null::int as num, count(*)::int as n from m
      where pack_id is not null group by pack_id`,
    ties: sql`(pack_id || '_' || min(pack_name)) collate "C"`,
  },
  samplerate: {
    columns: ['samplerate'],
    grouping: sql`select 'samplerate' as facet, null as value, samplerate as num, count(*)::int as n from m
      where samplerate is not null group by samplerate`,
    ties: sql`samplerate`,
  },
  channels: {
    columns: ['channels'],
    grouping: sql`select 'channels' as facet, null as value, channels as num, count(*)::int as n from m
      where channels is not null group by channels`,
    ties: sql`channels`,
  },
  bitdepth: {
    columns: ['bitdepth'],
    grouping: sql`select 'bitdepth' as facet, null as value, bitdepth::int as num, count(*)::int as n from m
      where bitdepth is not null group by bitdepth`,
    ties: sql`bitdepth`,
  },
};

interface FacetRow {
  facet: FacetName;
  value: string | null;
  num: number | null;
  n: number;
}

/** The search document's columns the facets of `request` group by. */
export function facetColumns(request: FacetRequest): string[] {
  return [...new Set(request.names.flatMap((name) => GROUPINGS[name].columns))];
}

/** Each requested facet's top values among the matches `m` (facet, value, num, n). */
function topValues(request: FacetRequest): RawBuilder<FacetRow> {
  const tops = request.names.map(
    (name) =>
      sql`(${GROUPINGS[name].grouping} order by n desc, ${GROUPINGS[name].ties} limit ${request.limit})`,
  );
  return sql`${sql.join(tops, sql` union all `)}`;
}

/** The order of topValues' rows: by facet, then as within each facet. */
const FACET_ORDER = sql`facet collate "C", n desc, num, value collate "C"`;

/**
 * The requested facets of the matches `m` (which holds facetColumns) as one JSON value, an array
 * of [facet, value, number, count]: for a statement that materializes the matches for its own
 * reasons (a page ranked over every match) to count the facets in the same scan.
 */
export function facetsOfMatches(request: FacetRequest): RawBuilder<FacetTuple[] | null> {
  return sql`(select json_agg(json_build_array(r.facet, r.value, r.num, r.n) order by ${FACET_ORDER})
    from (${topValues(request)}) r)`;
}

/** A facet row as facetsOfMatches' JSON holds it. */
export type FacetTuple = [FacetName, string | null, number | null, number];

/** The row of facetStatement's answer that holds the number of matches, not a facet's value. */
const COUNT_ROW = '';

/** The facets and the number of the visible sounds `where` matches, in one statement. */
export function facetStatement(where: RawBuilder<boolean>, request: FacetRequest): RawBuilder<FacetRow> {
  return sql<FacetRow>`with m as materialized (
      select ${sql.join(facetColumns(request).map((c) => sql.ref(`s.${c}`)))}
      from ${sql.table(SEARCH_TABLE)} s where ${where}
    )
    select facet, value, num, n from (
      ${topValues(request)}
      union all select ${COUNT_ROW}, null, null, (select count(*) from m)::int
    ) r order by ${FACET_ORDER}`;
}

/** A search's facets and its number of matches. */
export interface FacetsAndCount {
  facets: Facets;
  count: number;
}

/** Runs facetStatement and shapes its rows as the answer's `facets` (every requested facet, maybe empty). */
export async function databaseFacets(
  db: Kysely<any>,
  where: RawBuilder<boolean>,
  request: FacetRequest,
): Promise<FacetsAndCount> {
  const { rows } = await prepared(facetStatement(where, request)).execute(db);
  const count = rows.find((row) => (row.facet as string) === COUNT_ROW);
  const facetRows = rows.filter((row) => (row.facet as string) !== COUNT_ROW);
  return { facets: shapeFacets(request, facetRows), count: Number(count?.n ?? 0) };
}

/** Facet rows, in their order within each facet, as the answer's `facets` (every requested facet, maybe empty). */
export function shapeFacets(request: FacetRequest, rows: ReadonlyArray<FacetRow | FacetTuple>): Facets {
  const facets: Facets = {};
  for (const name of request.names) facets[name] = [];
  for (const row of rows) {
    const [facet, text, num, n] = Array.isArray(row) ? row : [row.facet, row.value, row.num, row.n];
    const value =
      num !== null ? Number(num) : facet === 'license' ? licenseValue(text as string) : (text as string);
    (facets[facet] as FacetCount[]).push([value, Number(n)]);
  }
  return facets;
}

/**
 * A search's facets, from whichever of its statements counts them first: a page ranked over every
 * match counts them in its own scan (`give`); otherwise the facet statement runs, once, and also
 * gives the number of matches, so a search that needs one asks it instead of counting again.
 */
export class DatabaseFacets {
  #run: Promise<FacetsAndCount> | undefined;
  #given: Facets | undefined;

  constructor(
    private readonly db: Kysely<any>,
    private readonly where: RawBuilder<boolean>,
    readonly request: FacetRequest,
  ) {}

  /** The facet statement's answer, started now unless it already was. */
  counted(): Promise<FacetsAndCount> {
    this.#run ??= databaseFacets(this.db, this.where, this.request);
    return this.#run;
  }

  /** Neither counted nor started: a scan of every match should count them. */
  get wanted(): boolean {
    return this.#run === undefined && this.#given === undefined;
  }

  /** Facets a statement counted over every match. */
  give(facets: Facets): void {
    this.#given = facets;
  }

  /** The facets: given, or the facet statement's. */
  async facets(): Promise<Facets> {
    return this.#given ?? (await this.counted()).facets;
  }
}
