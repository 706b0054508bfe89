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
 *
 * Every condition on a sound's descriptors (typed columns and paths into its analysis tree) is
 * evaluated over one read of its descriptor row: the tree is large and stored compressed, and a
 * subquery per condition decompressed it once per condition and sound (100 ranges: ~50 s at 10k
 * sounds). The conditions on the search document stay outside that read, where their indexes
 * can drive the statement.
 */
export function compileFilter(node: FilterNode): Condition {
  if (!readsDescriptors(node)) return compileNode(node, null);
  if (onlyDescriptors(node)) return descriptorRead(node);
  if (node.kind === 'and') {
    const outside = node.children.filter((c) => !readsDescriptors(c));
    const inside = node.children.filter(readsDescriptors);
    const rest: FilterNode = inside.length === 1 ? inside[0] : { kind: 'and', children: inside };
    const parts = [...outside.map((c) => compileNode(c, null)), descriptorRead(rest)];
    return sql<boolean>`(${sql.join(parts, sql` and `)})`;
  }
  return descriptorRead(node);
}

/**
 * The values of the analysis-tree paths one descriptor read needs, each taken from the tree once
 * per sound (`x.v<i>` the JSON node, `x.n<i>` its number, if it is one).
 */
class DescriptorRow {
  private readonly paths = new Map<string, { index: number; path: readonly string[] }>();

  /** The node (`v`) or number (`n`) column of `path` in the read. */
  column(path: readonly string[], kind: 'v' | 'n'): RawBuilder<unknown> {
    const key = JSON.stringify(path);
    let entry = this.paths.get(key);
    if (!entry) {
      entry = { index: this.paths.size, path };
      this.paths.set(key, entry);
    }
    return sql.ref(`x.${kind}${entry.index}`);
  }

  /**
   * The lateral subquery that decompresses the tree once (a function's result is an in-memory
   * value: later path lookups read it without decompressing again) and extracts every path.
   * OFFSET 0 keeps the planner from folding the extractions back into each condition.
   */
  lateral(): RawBuilder<unknown> {
    if (!this.paths.size) return sql``;
    const entries = [...this.paths.values()];
    const a = STORE.analysis;
    const nodes = entries.map((e) => sql`t.doc #> ${e.path}::text[] as ${sql.ref(`v${e.index}`)}`);
    const columns = entries.flatMap((e) => {
      const v = sql.ref(`y.v${e.index}`);
      // CASE fixes the evaluation order: only numbers are cast, so a string leaf cannot raise an error.
      return [
        sql`${v}`,
        sql`case when jsonb_typeof(${v}) = 'number' then (${v} #>> '{}')::float8 end as ${sql.ref(`n${e.index}`)}`,
      ];
    });
    return sql`cross join lateral (select ${sql.join(columns)} from (
        select ${sql.join(nodes)} from (select '{}'::jsonb || d.${sql.ref(a.column)} as doc offset 0) t offset 0
      ) y offset 0) x`;
  }
}

/**
 * A filter on descriptors as one read of the sound's descriptor row. A missing row makes each
 * descriptor condition false; a filter that is then false (the usual case) needs a row that
 * matches, one that is then true (a negation) needs no row that fails. A filter that mixes in
 * conditions on the search document reads the row, or its absence, beside it.
 */
function descriptorRead(node: FilterNode): Condition {
  const row = new DescriptorRow();
  const cond = compileNode(node, row);
  const d = STORE.descriptors;
  const table = sql.table(d.table);
  const key = sql.ref(`d.${d.soundId}`);
  if (!onlyDescriptors(node)) {
    return sql<boolean>`exists (select 1 from (select 1) one left join ${table} d on ${key} = s.id ${row.lateral()}
      where ${cond})`;
  }
  if (!withoutRow(node)) {
    return sql<boolean>`exists (select 1 from ${table} d ${row.lateral()} where ${key} = s.id and ${cond})`;
  }
  return sql<boolean>`(not exists (select 1 from ${table} d ${row.lateral()}
    where ${key} = s.id and not coalesce(${cond}, false)))`;
}

function isDescriptorLeaf(node: FilterNode): boolean {
  if (node.kind !== 'match' && node.kind !== 'range' && node.kind !== 'exists') return false;
  return node.field.kind === 'analysis' || node.field.def.source === 'descriptor';
}

/** Whether a filter reads the sound's descriptor row (typed columns or its analysis tree). */
export function readsDescriptors(node: FilterNode): boolean {
  if (node.kind === 'and' || node.kind === 'or') return node.children.some(readsDescriptors);
  if (node.kind === 'not') return readsDescriptors(node.child);
  return isDescriptorLeaf(node);
}

function onlyDescriptors(node: FilterNode): boolean {
  if (node.kind === 'and' || node.kind === 'or') return node.children.every(onlyDescriptors);
  if (node.kind === 'not') return onlyDescriptors(node.child);
  return node.kind === 'all' || isDescriptorLeaf(node);
}

/** What a filter of descriptor conditions amounts to for a sound without a descriptor row. */
function withoutRow(node: FilterNode): boolean {
  switch (node.kind) {
    case 'and':
      return node.children.every(withoutRow);
    case 'or':
      return node.children.some(withoutRow);
    case 'not':
      return !withoutRow(node.child);
    case 'all':
      return true;
    default:
      return false;
  }
}

/** `row`: inside a descriptor read, where descriptor conditions are read from `d` and `x`. */
function compileNode(node: FilterNode, row: DescriptorRow | null): Condition {
  switch (node.kind) {
    case 'all':
      return TRUE;
    case 'and':
      return sql<boolean>`(${sql.join(
        node.children.map((c) => compileNode(c, row)),
        sql` and `,
      )})`;
    case 'or':
      return sql<boolean>`(${sql.join(
        node.children.map((c) => compileNode(c, row)),
        sql` or `,
      )})`;
    case 'not':
      // A missing value is "not matching", so NOT must treat NULL as false, not as unknown.
      return sql<boolean>`(not coalesce(${compileNode(node.child, row)}, false))`;
    case 'match':
      if (node.field.kind === 'analysis') return analysisCondition(rowOf(row), node.field.path, node.value);
      return compileMatch(node.field, node.value, row ? 'd' : 's');
    case 'range':
      if (node.field.kind === 'analysis') {
        return analysisRange(rowOf(row), node.field.path, node.lower, node.upper);
      }
      return compileRange(node.field, node.lower, node.upper, row ? 'd' : 's');
    case 'exists':
      if (node.field.kind === 'analysis')
        return sql<boolean>`${rowOf(row).column(node.field.path, 'v')} is not null`;
      return compileExists(node.field, row ? 'd' : 's');
    case 'geo-box':
      return geoBox(node.minLat, node.minLon, node.maxLat, node.maxLon);
    case 'geo-distance':
      return geoDistance(node.lat, node.lon, node.km);
  }
}

function rowOf(row: DescriptorRow | null): DescriptorRow {
  // compileFilter routes every descriptor condition into a read.
  if (!row) throw new Error('a descriptor condition outside a descriptor read');
  return row;
}

/** A query that is the text of a text field, as the store analyses it: a word matches its stem, quotes a phrase. */
export function textQuery(text: string, phrase: boolean): RawBuilder<unknown> {
  return phrase ? sql`phraseto_tsquery(${cfg}, ${text}::text)` : sql`plainto_tsquery(${cfg}, ${text}::text)`;
}

/** A condition on a registered field: over `d`, the sound's descriptor row, for a descriptor. */
function compileMatch(field: FieldRef, value: FilterValue, alias: 's' | 'd'): Condition {
  if (field.kind === 'analysis') throw new Error('an analysis path is read through a DescriptorRow');
  const def = field.def;
  if (def.source === 'comments') {
    if (value.type !== 'text') return FALSE;
    const c = STORE.comments;
    return sql<boolean>`exists (select 1 from ${sql.table(c.table)} c where c.${sql.ref(c.soundId)} = s.id
      and to_tsvector(${cfg}, c.${sql.ref(c.text)}) @@ ${textQuery(value.text, value.phrase)})`;
  }
  if (def.source === 'uploader') {
    return value.type === 'string'
      ? sql<boolean>`${uploaderGenAiPreference()} = ${value.value}::text`
      : FALSE;
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

/**
 * The sound's generative-AI preference: its uploader's, made `no-gen-ai` for solo speech by their
 * opt-out (schema/gen-ai-preference.ts), by the function the sound records read it with.
 */
function uploaderGenAiPreference(): RawBuilder<string> {
  return sql<string>`(select sound_gen_ai_preference(u.gen_ai_preference, u.gen_ai_speech_opt_out, so.category_code)
    from sounds so join users u on u.id = so.user_id where so.id = s.id)`;
}

/** The comparison a range bound stands for: `lo` is the lower bound, `hi` the upper. */
export function boundOp(side: 'lo' | 'hi', inclusive: boolean): RawBuilder<unknown> {
  return sql.raw(side === 'lo' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<');
}

function compileRange(
  field: FieldRef,
  lower: RangeBound | null,
  upper: RangeBound | null,
  alias: 's' | 'd',
): Condition {
  if (field.kind === 'analysis') throw new Error('an analysis path is read through a DescriptorRow');
  const def = field.def;
  if (def.source === 'uploader') return FALSE;
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

function compileExists(field: FieldRef, alias: 's' | 'd'): Condition {
  if (field.kind === 'analysis') throw new Error('an analysis path is read through a DescriptorRow');
  const def = field.def;
  if (def.source === 'descriptor') return sql<boolean>`${sql.ref(`${alias}.${def.column}`)} is not null`;
  if (def.source === 'comments') return sql<boolean>`s.num_comments > 0`;
  if (def.source === 'uploader') return TRUE;
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

/** A match on one path of the analysis tree, read once per sound by `row`. */
function analysisCondition(row: DescriptorRow, path: readonly string[], value: FilterValue): Condition {
  if (value.type === 'string') return sql<boolean>`${row.column(path, 'v')} #>> '{}' = ${value.value}::text`;
  if (value.type === 'number') return sql<boolean>`${row.column(path, 'n')} = ${value.value}::float8`;
  return FALSE;
}

function analysisRange(
  row: DescriptorRow,
  path: readonly string[],
  lower: RangeBound | null,
  upper: RangeBound | null,
): Condition {
  const num = row.column(path, 'n');
  const parts: Condition[] = [sql<boolean>`${num} is not null`];
  if (lower)
    parts.push(sql<boolean>`${num} ${boundOp('lo', lower.inclusive)} ${Number(lower.value)}::float8`);
  if (upper)
    parts.push(sql<boolean>`${num} ${boundOp('hi', upper.inclusive)} ${Number(upper.value)}::float8`);
  return sql<boolean>`(${sql.join(parts, sql` and `)})`;
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
