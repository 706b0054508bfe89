import { type RawBuilder, sql } from 'kysely';
import type { FieldRef, FilterNode, FilterValue, RangeBound } from './filter-ast.ts';
import { boundingBox, EARTH_RADIUS_KM } from './filter-values.ts';
import { NUMERIC_COLUMN_TYPES, STORE, TS_CONFIG } from './search-schema.ts';

/** A boolean SQL expression: one condition of a search statement's `where`. */
export type Condition = RawBuilder<boolean>;

const TRUE: Condition = sql<boolean>`true`;
const FALSE: Condition = sql<boolean>`false`;
const cfg = sql.lit(TS_CONFIG);

/**
 * Compiles a parsed filter into one SQL boolean over the search document aliased `s`. Every
 * value is a bound parameter; identifiers come from the field registry, never from the request.
 */
export function compileFilter(node: FilterNode): Condition {
  switch (node.kind) {
    case 'all':
      return TRUE;
    case 'and':
      return sql<boolean>`(${sql.join(node.children.map(compileFilter), sql` and `)})`;
    case 'or':
      return sql<boolean>`(${sql.join(node.children.map(compileFilter), sql` or `)})`;
    case 'not':
      // A missing value is "not matching", so NOT must treat NULL as false, not as unknown.
      return sql<boolean>`(not coalesce(${compileFilter(node.child)}, false))`;
    case 'match':
      return compileMatch(node.field, node.value);
    case 'range':
      return compileRange(node.field, node.lower, node.upper);
    case 'exists':
      return compileExists(node.field);
    case 'geo-box':
      return geoBox(node.minLat, node.minLon, node.maxLat, node.maxLon);
    case 'geo-distance':
      return geoDistance(node.lat, node.lon, node.km);
  }
}

/** A query that is the text of a text field, as the store analyses it: a word matches its stem, quotes a phrase. */
export function textQuery(text: string, phrase: boolean): RawBuilder<unknown> {
  return phrase ? sql`phraseto_tsquery(${cfg}, ${text}::text)` : sql`plainto_tsquery(${cfg}, ${text}::text)`;
}

function compileMatch(field: FieldRef, value: FilterValue, alias = 's'): Condition {
  if (field.kind === 'analysis') return analysisCondition(field.path, value, null, null);
  const def = field.def;
  if (def.source === 'descriptor' && alias === 's') {
    return descriptorCondition(compileMatch(field, value, 'd'));
  }
  if (def.source === 'comments') {
    if (value.type !== 'text') return FALSE;
    const c = STORE.comments;
    return sql<boolean>`exists (select 1 from ${sql.table(c.table)} c where c.${sql.ref(c.soundId)} = s.id
      and to_tsvector(${cfg}, c.${sql.ref(c.text)}) @@ ${textQuery(value.text, value.phrase)})`;
  }
  const col = sql.ref(`${alias}.${def.column}`);
  switch (value.type) {
    case 'text': {
      const q = textQuery(value.text, value.phrase);
      // The weighted document vector finds candidates through its GIN index; the column's own
      // vector then keeps only matches in this field (name and pack share a weight class).
      return sql<boolean>`(s.tsv @@ ${q} and to_tsvector(${cfg}, coalesce(${col}, '')) @@ ${q})`;
    }
    case 'string':
      if (def.type === 'tags') return sql<boolean>`s.tags @> array[lower(${value.value}::text)]`;
      return def.caseInsensitive
        ? sql<boolean>`lower(${col}) = lower(${value.value}::text)`
        : sql<boolean>`${col} = ${value.value}::text`;
    case 'number': {
      const v = numericParam(def.column, value.value, 'eq');
      return v === null ? FALSE : sql<boolean>`${col} = ${v}`;
    }
    case 'bool':
      if (def.name === 'is_geotagged') {
        return value.value ? sql<boolean>`s.lat is not null` : sql<boolean>`s.lat is null`;
      }
      return sql<boolean>`${col} = ${value.value}`;
    case 'date':
      return sql<boolean>`(${col} >= ${value.period.start} and ${col} < ${value.period.end})`;
    case 'pack':
      return sql<boolean>`${col} = ${value.packId}`;
  }
}

/** The comparison a range bound stands for: `lo` is the lower bound, `hi` the upper. */
export function boundOp(side: 'lo' | 'hi', inclusive: boolean): RawBuilder<unknown> {
  return sql.raw(side === 'lo' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<');
}

function compileRange(
  field: FieldRef,
  lower: RangeBound | null,
  upper: RangeBound | null,
  alias = 's',
): Condition {
  if (field.kind === 'analysis') return analysisCondition(field.path, null, lower, upper);
  const def = field.def;
  if (def.source === 'descriptor' && alias === 's') {
    return descriptorCondition(compileRange(field, lower, upper, 'd'));
  }
  const col = sql.ref(`${alias}.${def.column}`);
  const parts: Condition[] = [];
  for (const [bound, side] of [
    [lower, 'lo'],
    [upper, 'hi'],
  ] as const) {
    if (!bound) continue;
    const op = boundOp(side, bound.inclusive);
    if (bound.value instanceof Date) {
      parts.push(sql<boolean>`${col} ${op} ${bound.value}`);
      continue;
    }
    const v = numericParam(def.column, bound.value, side, bound.inclusive);
    if (v === null) return FALSE;
    parts.push(sql<boolean>`${col} ${op} ${v}`);
  }
  if (parts.length === 0) return sql<boolean>`${col} is not null`;
  return sql<boolean>`(${sql.join(parts, sql` and `)})`;
}

function compileExists(field: FieldRef): Condition {
  if (field.kind === 'analysis') {
    const a = STORE.analysis;
    return sql<boolean>`exists (select 1 from ${sql.table(a.table)} a where a.${sql.ref(a.soundId)} = s.id
      and a.${sql.ref(a.column)} #> ${field.path}::text[] is not null)`;
  }
  const def = field.def;
  if (def.source === 'descriptor') {
    const d = STORE.descriptors;
    return sql<boolean>`exists (select 1 from ${sql.table(d.table)} d where d.${sql.ref(d.soundId)} = s.id
      and d.${sql.ref(def.column)} is not null)`;
  }
  if (def.source === 'comments') return sql<boolean>`s.num_comments > 0`;
  if (def.type === 'geo' || def.name === 'is_geotagged') return sql<boolean>`s.lat is not null`;
  if (def.type === 'tags') return sql<boolean>`cardinality(s.tags) > 0`;
  const col = sql.ref(`s.${def.column}`);
  if (def.type === 'text' || def.type === 'keyword') return sql<boolean>`coalesce(${col}, '') <> ''`;
  return sql<boolean>`${col} is not null`;
}

/**
 * A positive condition on one typed descriptor column, as SQL over the store's descriptor row
 * aliased `d` (what `descriptorCondition` wraps); null for any other node.
 */
export function descriptorRowCondition(node: FilterNode): Condition | null {
  if (node.kind !== 'match' && node.kind !== 'range' && node.kind !== 'exists') return null;
  if (node.field.kind !== 'field' || node.field.def.source !== 'descriptor') return null;
  const col = sql.ref(`d.${node.field.def.column}`);
  if (node.kind === 'exists') return sql<boolean>`${col} is not null`;
  if (node.kind === 'match') return compileMatch(node.field, node.value, 'd');
  return compileRange(node.field, node.lower, node.upper, 'd');
}

/** A condition on the store's descriptor row (aliased `d`) of the sound. */
function descriptorCondition(inner: Condition): Condition {
  const d = STORE.descriptors;
  return sql<boolean>`exists (select 1 from ${sql.table(d.table)} d where d.${sql.ref(d.soundId)} = s.id and ${inner})`;
}

function analysisCondition(
  path: readonly string[],
  value: FilterValue | null,
  lower: RangeBound | null,
  upper: RangeBound | null,
): Condition {
  const a = STORE.analysis;
  const node = sql`a.${sql.ref(a.column)} #> ${path}::text[]`;
  // CASE fixes the evaluation order: only numbers are cast, so a string leaf cannot raise an error.
  const num = sql`(case when jsonb_typeof(${node}) = 'number' then (${node} #>> '{}')::float8 end)`;
  let cond: Condition;
  if (value?.type === 'string') cond = sql<boolean>`${node} #>> '{}' = ${value.value}::text`;
  else if (value?.type === 'number') cond = sql<boolean>`${num} = ${value.value}::float8`;
  else {
    const parts: Condition[] = [sql<boolean>`${num} is not null`];
    if (lower)
      parts.push(sql<boolean>`${num} ${boundOp('lo', lower.inclusive)} ${Number(lower.value)}::float8`);
    if (upper)
      parts.push(sql<boolean>`${num} ${boundOp('hi', upper.inclusive)} ${Number(upper.value)}::float8`);
    cond = sql<boolean>`${sql.join(parts, sql` and `)}`;
  }
  return sql<boolean>`exists (select 1 from ${sql.table(a.table)} a where a.${sql.ref(a.soundId)} = s.id and ${cond})`;
}

const INT4 = 2_147_483_647;
const INT8_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A number made safe for its column's type: integer columns get integers (a bound is rounded
 * inwards, an out-of-range bound clamped) so PostgreSQL never sees a value it would reject.
 * null means the condition can never hold.
 */
function numericParam(
  column: string,
  value: number,
  use: 'eq' | 'lo' | 'hi',
  inclusive = true,
): number | null {
  const type = NUMERIC_COLUMN_TYPES[column] ?? 'float8';
  if (type === 'float8') return value;
  const max = type === 'int4' ? INT4 : INT8_SAFE;
  if (use === 'eq') return Number.isInteger(value) && Math.abs(value) <= max ? value : null;
  let v =
    use === 'lo'
      ? inclusive
        ? Math.ceil(value)
        : Math.floor(value)
      : inclusive
        ? Math.floor(value)
        : Math.ceil(value);
  if (v > max) {
    if (use === 'lo') return null;
    v = max;
  }
  if (v < -max) {
    if (use === 'hi') return null;
    v = -max;
  }
  return v;
}

function geoBox(minLat: number, minLon: number, maxLat: number, maxLon: number): Condition {
  const lat = sql<boolean>`s.lat between ${minLat}::float8 and ${maxLat}::float8`;
  const lon =
    minLon <= maxLon
      ? sql<boolean>`s.lon between ${minLon}::float8 and ${maxLon}::float8`
      : sql<boolean>`(s.lon >= ${minLon}::float8 or s.lon <= ${maxLon}::float8)`;
  return sql<boolean>`(${lat} and ${lon})`;
}

function geoDistance(lat: number, lon: number, km: number): Condition {
  const b = boundingBox(lat, lon, km);
  const box = geoBox(b.minLat, b.minLon, b.maxLat, b.maxLon);
  // Haversine great-circle distance; the box above lets the (lat, lon) index do the coarse work.
  const haversine = sql`2 * ${EARTH_RADIUS_KM}::float8 * asin(least(1, sqrt(
      power(sin(radians(s.lat - ${lat}::float8) / 2), 2)
      + cos(radians(${lat}::float8)) * cos(radians(s.lat)) * power(sin(radians(s.lon - ${lon}::float8) / 2), 2))))`;
  return sql<boolean>`(${box} and ${haversine} <= ${km}::float8)`;
}
