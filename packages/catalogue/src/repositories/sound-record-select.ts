import type { Sound } from '../schema/database.ts';
import type { GenAiPreference } from '../schema/gen-ai-preference.ts';
import { PUBLIC_SOUND } from './sounds.ts';

// The sound record and the select lists of the statements that read it, written out once
// (records.ts, sound-changes.ts). Only the types are the catalogue's exports (through records.ts):
// statements are the repositories' own.

/** A public sound with what every field of the contract needs, as one row. */
export interface SoundRecord
  extends Pick<
    Sound,
    | 'id'
    | 'user_id'
    | 'name'
    | 'tags'
    | 'description'
    | 'category'
    | 'subcategory'
    | 'category_code'
    | 'category_is_user_provided'
    | 'geotag_lat'
    | 'geotag_lon'
    | 'created'
    | 'license'
    | 'type'
    | 'channels'
    | 'filesize'
    | 'bitrate'
    | 'bitdepth'
    | 'duration'
    | 'samplerate'
    | 'md5'
    | 'is_remix'
    | 'was_remixed'
    | 'is_explicit'
    | 'pack_id'
    | 'num_downloads'
    | 'avg_rating'
    | 'num_ratings'
    | 'num_comments'
  > {
  username: string;
  pack_name: string | null;
  /** The uploader's generative-AI preference as it applies to this sound (speech opt-out included). */
  gen_ai_preference: GenAiPreference;
  /** The sound has a vector in the default similarity space. */
  similarity_ready: boolean;
  /** Analysis results exist. */
  analyzed: boolean;
}

/** A column of a sound record. */
export type SoundRecordColumn = keyof SoundRecord;

/**
 * Each column of a sound record and the expression that reads it, in the statement's order. The
 * user's name and generative-AI preference need the users join, the pack's name the packs join, and
 * the last two are probes of other tables: a read that does not need them leaves them out.
 */
const RECORD_COLUMNS: ReadonlyArray<readonly [SoundRecordColumn, string]> = [
  ['id', 's.id'],
  ['user_id', 's.user_id'],
  ['username', 'u.username'],
  ...(
    [
      'name',
      'tags',
      'description',
      'category',
      'subcategory',
      'category_code',
      'category_is_user_provided',
      'geotag_lat',
      'geotag_lon',
      'created',
      'license',
      'type',
      'channels',
      'filesize',
      'bitrate',
      'bitdepth',
      'duration',
      'samplerate',
      'md5',
      'is_remix',
      'was_remixed',
      'is_explicit',
      'pack_id',
    ] as const
  ).map((column) => [column, `s.${column}`] as const),
  ['pack_name', 'p.name'],
  ...(['num_downloads', 'avg_rating', 'num_ratings', 'num_comments'] as const).map(
    (column) => [column, `s.${column}`] as const,
  ),
  [
    'gen_ai_preference',
    'sound_gen_ai_preference(u.gen_ai_preference, u.gen_ai_speech_opt_out, s.category_code)',
  ],
  // `$space`: the statement's parameter holding the default similarity space.
  [
    'similarity_ready',
    'exists (select 1 from sound_similarity_vectors v where v.sound_id = s.id and v.space = $space)',
  ],
  ['analyzed', 'exists (select 1 from sound_descriptors d where d.sound_id = s.id)'],
];

/** Every column of a sound record. */
export const ALL_SOUND_RECORD_COLUMNS: readonly SoundRecordColumn[] = RECORD_COLUMNS.map(([c]) => c);

const USER_COLUMNS: ReadonlySet<SoundRecordColumn> = new Set(['username', 'gen_ai_preference']);

/**
 * The select list reading `columns` (and always `id`) of a sound `s`, and the joins it needs (the
 * user as `u`, the pack as `p`); `spaceParameter` is the placeholder of the default similarity
 * space, used only when `space` says so (an unused parameter has no type: the statement must not
 * be sent it). `form: 'json'` reads each column as a JSON value `fromJsonRecord` turns back into
 * the row the plain form reads.
 */
export function soundRecordSelect(
  columns: Iterable<SoundRecordColumn>,
  spaceParameter: string,
  form: 'row' | 'json' = 'row',
): { select: string; users: boolean; packs: boolean; space: boolean } {
  const asked = new Set<SoundRecordColumn>(columns).add('id');
  const read = RECORD_COLUMNS.filter(([column]) => asked.has(column));
  return {
    select: read
      .map(([column, plain]) => {
        const expression = (form === 'json' && JSON_EXPRESSIONS[column]) || plain;
        return expression === `s.${column}`
          ? expression
          : `${expression.replace('$space', spaceParameter)} as ${column}`;
      })
      .join(', '),
    users: [...USER_COLUMNS].some((column) => asked.has(column)),
    packs: asked.has('pack_name'),
    space: asked.has('similarity_ready'),
  };
}

/**
 * Columns whose JSON value is not the one the driver reads from their text: a timestamp is read
 * as epoch seconds (`epochDate`), and a float that is not a number (NaN, ±Infinity) comes as a
 * string in JSON.
 */
const JSON_EXPRESSIONS: Partial<Record<SoundRecordColumn, string>> = {
  created: "date_part('epoch', s.created)",
};

/**
 * A timestamp read as `date_part('epoch', …)` (a float8: cheap to compute and to read, where the
 * exact `extract` is a numeric): the nearest double to its seconds, which names its microsecond
 * exactly until the 23rd century; truncated to the millisecond, as the driver truncates a
 * timestamp's text.
 */
export function epochDate(seconds: number): Date {
  return new Date(Math.floor(Math.round(seconds * 1e6) / 1000));
}
const JSON_FLOATS: readonly SoundRecordColumn[] = [
  'geotag_lat',
  'geotag_lon',
  'bitrate',
  'duration',
  'avg_rating',
];

/** A row of `soundRecordSelect`'s JSON form, parsed, made the row its plain form reads (in place). */
export function fromJsonRecord(row: Record<string, unknown>): SoundRecord {
  if (typeof row.created === 'number') row.created = epochDate(row.created);
  for (const column of JSON_FLOATS) {
    const value = row[column];
    if (typeof value === 'string') row[column] = Number(value);
  }
  return row as unknown as SoundRecord;
}

/** Where a sound `s` is public, as SQL text for the statements written out once. */
export const PUBLIC_SOUND_SQL = `s.moderation_state = '${PUBLIC_SOUND.moderation_state}'
  and s.processing_state = '${PUBLIC_SOUND.processing_state}'`;
