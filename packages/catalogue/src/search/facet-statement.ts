import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type FacetCount, type FacetName, type FacetRequest, type Facets, licenseValue } from './facets.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { prepared } from './statement.ts';

/**
 * The facets of a search PostgreSQL answers (the posting index counts its own: posting-facets.ts),
 * in one statement: the matches are read once into a materialized set holding only the columns
 * the facets group by, each facet is one grouping of it, and a window keeps each facet's top
 * values. Each grouping counts exactly what its filter (facetFilter) selects: tags as the
 * case-insensitive whole tag (the document's tags are lower-cased; a tag twice on a sound counts
 * once), license, type and username case-insensitively, packs by id, the others by value; a sound
 * without a value is in no group.
 */

/** Per facet: the columns it reads and its grouping over the matches `m` (facet, value, number, count). */
const GROUPINGS: Record<FacetName, { columns: string[]; grouping: RawBuilder<unknown> }> = {
  tags: {
    columns: ['tags'],
    grouping: sql`select 'tags', t, null::int, count(*)::int from m
      cross join lateral (select distinct t from unnest(m.tags) t) x group by t`,
  },
  license: {
    columns: ['license'],
    grouping: sql`select 'license', lower(license), null::int, count(*)::int from m
      where license <> '' group by lower(license)`,
  },
  type: {
    columns: ['type'],
    grouping: sql`select 'type', lower(type), null::int, count(*)::int from m
      where type <> '' group by lower(type)`,
  },
  category: {
    columns: ['category'],
    grouping: sql`select 'category', category, null::int, count(*)::int from m
      where category <> '' group by category`,
  },
  subcategory: {
    columns: ['subcategory'],
    grouping: sql`select 'subcategory', subcategory, null::int, count(*)::int from m
      where subcategory <> '' group by subcategory`,
  },
  username: {
    columns: ['username'],
    grouping: sql`select 'username', min(username), null::int, count(*)::int from m
      where username <> '' group by lower(username)`,
  },
  pack: {
    columns: ['pack_id', 'pack_name'],
    grouping: sql`select 'pack', pack_id || '_' || min(pack_name), null::int, count(*)::int from m
      where pack_id is not null group by pack_id`,
  },
  samplerate: {
    columns: ['samplerate'],
    grouping: sql`select 'samplerate', null, samplerate, count(*)::int from m
      where samplerate is not null group by samplerate`,
  },
  channels: {
    columns: ['channels'],
    grouping: sql`select 'channels', null, channels, count(*)::int from m
      where channels is not null group by channels`,
  },
  bitdepth: {
    columns: ['bitdepth'],
    grouping: sql`select 'bitdepth', null, bitdepth::int, count(*)::int from m
      where bitdepth is not null group by bitdepth`,
  },
};

interface FacetRow {
  facet: FacetName;
  value: string | null;
  num: number | null;
  n: number;
}

/** The statement counting `request`'s facets over the visible sounds `where` matches. */
export function facetStatement(where: RawBuilder<boolean>, request: FacetRequest): RawBuilder<FacetRow> {
  const columns = [...new Set(request.names.flatMap((name) => GROUPINGS[name].columns))];
  const groupings = request.names.map((name) => GROUPINGS[name].grouping);
  return sql<FacetRow>`with m as materialized (
      select ${sql.join(columns.map((c) => sql.ref(`s.${c}`)))}
      from ${sql.table(SEARCH_TABLE)} s where ${where}
    ), c (facet, value, num, n) as (${sql.join(groupings, sql` union all `)}),
    r as (
      select c.*, row_number() over (partition by facet order by n desc, num, value collate "C") as k from c
    )
    select facet, value, num, n from r where k <= ${request.limit} order by facet, k`;
}

/** Runs facetStatement and shapes its rows as the answer's `facets` (every requested facet, maybe empty). */
export async function databaseFacets(
  db: Kysely<any>,
  where: RawBuilder<boolean>,
  request: FacetRequest,
): Promise<Facets> {
  const { rows } = await prepared(facetStatement(where, request)).execute(db);
  const facets: Facets = {};
  for (const name of request.names) facets[name] = [];
  for (const row of rows) {
    const value =
      row.num !== null
        ? Number(row.num)
        : row.facet === 'license'
          ? licenseValue(row.value as string)
          : (row.value as string);
    (facets[row.facet] as FacetCount[]).push([value, Number(row.n)]);
  }
  return facets;
}
