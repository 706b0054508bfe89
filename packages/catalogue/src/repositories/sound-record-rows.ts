import { CompiledQuery } from 'kysely';
import { GENERIC_PLAN_MARK } from '../connection/prepared-statements.ts';
import type { Db } from './shared.ts';
import {
  ALL_SOUND_RECORD_COLUMNS,
  fromJsonRecord,
  PUBLIC_SOUND_SQL,
  type SoundRecord,
  type SoundRecordColumn,
  soundRecordSelect,
} from './sound-record-select.ts';

// The read of sound records by id (records.ts `soundRecordsByIds`, sound-changes.ts), not part of
// the catalogue's exports.

/**
 * The statement behind `soundRecordsByIds`, written out once: the API's hottest read (every sound
 * instance, every page of results) runs from a plan each connection keeps (GENERIC_PLAN_MARK), and
 * building it with the query builder on every call cost more in the API than reading its rows.
 * One statement for the whole page: the sound with its user's name, its pack's name and the two
 * facts the serializer's links need (a vector in the default space, analysis results).
 */
function soundRecordsSql(
  columns: Iterable<SoundRecordColumn>,
  form: 'row' | 'json' = 'row',
  which: 'ids' | 'range' = 'ids',
): { text: string; space: boolean } {
  const space = which === 'ids' ? '$2' : '$3';
  const record = soundRecordSelect(columns, space, form);
  const rows = `select ${record.select}
from sounds s
  ${record.users ? 'join users u on u.id = s.user_id' : ''}
  ${record.packs ? 'left join packs p on p.id = s.pack_id' : ''}
where ${which === 'ids' ? 's.id = any($1::int[])' : 's.id between $1::int and $2::int'}
  and ${PUBLIC_SOUND_SQL}`;
  const text =
    form === 'json'
      ? `${GENERIC_PLAN_MARK}\nselect json_agg(r) as page from (${rows}) r`
      : `${GENERIC_PLAN_MARK}\n${rows}`;
  return { text, space: record.space };
}

const SOUND_RECORDS_SQL = soundRecordsSql(ALL_SOUND_RECORD_COLUMNS);

/** Public sounds by id (see `soundRecordsByIds`), in the order the statement returns them, each once. */
export async function soundRecordRows(
  db: Db,
  ids: readonly number[],
  defaultSpace: string,
  columns?: Iterable<SoundRecordColumn>,
): Promise<SoundRecord[]> {
  if (ids.length === 0) return [];
  const { text, space } = columns ? soundRecordsSql(columns) : SOUND_RECORDS_SQL;
  // The ids as an array literal: pg would quote and escape each element of a JS array.
  const literal = `{${ids.join(',')}}`;
  const { rows } = await db.executeQuery<SoundRecord>(
    CompiledQuery.raw(text, space ? [literal, defaultSpace] : [literal]),
  );
  return rows;
}

/**
 * `soundRecordRows` for many ids at once (the changes feed's thousands): the rows come as one JSON
 * value, which the driver hands to JSON.parse, several times cheaper in time and memory than
 * reading as many rows; each is then made the row the plain read returns (`fromJsonRecord`). Ids
 * that fill at least half of their range (sounds stamped together, as a bulk load's or a harvest
 * from the start's are) are read as that range, in index order, a few times cheaper than probing
 * the index for each id; the range's other sounds are left out here.
 */
export async function soundRecordRowsByJson(
  db: Db,
  ids: readonly number[],
  defaultSpace: string,
  columns: Iterable<SoundRecordColumn>,
): Promise<SoundRecord[]> {
  if (ids.length === 0) return [];
  let low = ids[0];
  let high = ids[0];
  for (const id of ids) {
    if (id < low) low = id;
    if (id > high) high = id;
  }
  const dense = high - low < 2 * ids.length;
  const { text, space } = soundRecordsSql(columns, 'json', dense ? 'range' : 'ids');
  const bounds = dense ? [low, high] : [`{${ids.join(',')}}`];
  const { rows } = await db.executeQuery<{ page: Array<Record<string, unknown>> | null }>(
    CompiledQuery.raw(text, space ? [...bounds, defaultSpace] : bounds),
  );
  const page = rows[0]?.page ?? [];
  const asked = dense ? new Set(ids) : undefined;
  const records: SoundRecord[] = [];
  for (const row of page) if (!asked || asked.has(row.id as number)) records.push(fromJsonRecord(row));
  return records;
}
