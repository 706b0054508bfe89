import { CompiledQuery } from 'kysely';
import { GENERIC_PLAN_MARK } from '../connection/prepared-statements.ts';
import type { Db } from './shared.ts';
import {
  ALL_SOUND_RECORD_COLUMNS,
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
function soundRecordsSql(columns: Iterable<SoundRecordColumn>): { text: string; space: boolean } {
  const record = soundRecordSelect(columns, '$2');
  const text = `${GENERIC_PLAN_MARK}
select ${record.select}
from sounds s
  ${record.users ? 'join users u on u.id = s.user_id' : ''}
  ${record.packs ? 'left join packs p on p.id = s.pack_id' : ''}
where s.id = any($1::int[])
  and ${PUBLIC_SOUND_SQL}`;
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
