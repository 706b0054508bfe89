import { EarshotError } from '@earshot/common';
import type { ProbeResult, SoundType } from '@earshot/core';
import { type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Database, ModerationState, ProcessingState, Sound, SoundUpdate } from '../schema/database.ts';
import type { LicenseName } from '../schema/licenses.ts';
import { categoryCode } from '../schema/taxonomy.ts';
import {
  advanceColumns,
  QUEUED_RECORD,
  type StageAdvance,
  updateThrough,
} from './lifecycle/sound-lifecycle.ts';
import {
  type Db,
  inRetriedTransaction,
  inTransaction,
  isUniqueViolation,
  type Page,
  type PageRequest,
} from './shared.ts';
import { replaceSoundTags } from './tags.ts';

/** A sound with its uploader's name and its pack's name (what every serializer needs). */
export interface SoundView extends Sound {
  username: string;
  pack_name: string | null;
}

export interface Geotag {
  lat: number;
  lon: number;
  zoom?: number | null;
}

export interface NewSound {
  userId: number;
  name: string;
  description?: string;
  tags: readonly string[];
  license: LicenseName;
  originalFilename: string;
  /** Relative to DATA_DIR. */
  originalPath: string;
  packId?: number | null;
  /** Taxonomy names; `category_code` is derived from them (categoryCode). */
  category?: string | null;
  subcategory?: string | null;
  /** Default: true when a category is given (the uploader gave it); false for an estimated one. */
  categoryIsUserProvided?: boolean;
  geotag?: Geotag | null;
  isExplicit?: boolean;
  /** Ids of the sounds this one remixes. */
  remixOf?: readonly number[];
  md5?: string | null;
  filesize?: number | null;
  /** CRC-32 of the original, when taken as it streamed in. */
  crc32?: number | null;
  type?: SoundType | null;
  /** Default: `ok` for a trusted uploader, else `pending_moderation`. */
  moderationState?: ModerationState;
}

export class DuplicateSoundFileError extends EarshotError {
  constructor() {
    super(
      'Sound could not be created because the uploaded file is already part of the catalogue.',
      'duplicate_file',
      400,
    );
  }
}

/**
 * Public means approved by moderation and processed: the only sounds the API lists or shows.
 * This is the one definition; every statement that needs it uses one of the three forms below.
 */
export const PUBLIC_SOUND = { moderation_state: 'ok', processing_state: 'Processed' } as const satisfies {
  moderation_state: ModerationState;
  processing_state: ProcessingState;
};

/** `isPublic` over the `sounds` table by its own name (`.where(isPublic)`, `eb.not(isPublic(eb))`). */
export function isPublic(eb: ExpressionBuilder<Database, 'sounds'>) {
  return eb.and([
    eb('sounds.moderation_state', '=', PUBLIC_SOUND.moderation_state),
    eb('sounds.processing_state', '=', PUBLIC_SOUND.processing_state),
  ]);
}

/** `isPublic` of a row already read. */
export function isPublicState(sound: Pick<Sound, 'moderation_state' | 'processing_state'>): boolean {
  return (
    sound.moderation_state === PUBLIC_SOUND.moderation_state &&
    sound.processing_state === PUBLIC_SOUND.processing_state
  );
}

/**
 * `isPublic` over the sounds table under an alias, as two `where` clauses with parameters
 * (`selectFrom('sounds as s').$call(wherePublic('s'))`): the statements the API's reads always sent.
 */
export function wherePublic(alias: string) {
  return <DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> =>
    (qb as SelectQueryBuilder<any, any, O>)
      .where(`${alias}.moderation_state`, '=', PUBLIC_SOUND.moderation_state)
      .where(`${alias}.processing_state`, '=', PUBLIC_SOUND.processing_state);
}

/**
 * `isPublic` as a raw-SQL condition on a sounds alias, the values written as literals, for
 * statements written in SQL (counts in correlated subqueries).
 */
export function publicSoundSql(alias: string): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<boolean>`${column('moderation_state')} = ${sql.lit(PUBLIC_SOUND.moderation_state)} and ${column('processing_state')} = ${sql.lit(PUBLIC_SOUND.processing_state)}`;
}

function soundViews(db: Db): SelectQueryBuilder<Database, 'sounds' | 'users' | 'packs', SoundView> {
  return db
    .selectFrom('sounds')
    .innerJoin('users', 'users.id', 'sounds.user_id')
    .leftJoin('packs', 'packs.id', 'sounds.pack_id')
    .selectAll('sounds')
    .select(['users.username', 'packs.name as pack_name']);
}

/**
 * Creates a described sound, its tags and remix links, in one transaction. This is the lifecycle's
 * `queue`: the sound is born `Queued` (no later write says so again) and the pipeline takes it up.
 */
export function createSound(db: Db, input: NewSound): Promise<SoundView> {
  return inTransaction(db, async (trx) => {
    const uploader = await trx
      .selectFrom('users')
      .select('is_trusted')
      .where('id', '=', input.userId)
      .executeTakeFirstOrThrow();
    const moderation = input.moderationState ?? (uploader.is_trusted ? 'ok' : 'pending_moderation');
    let inserted: { id: number };
    try {
      inserted = await trx
        .insertInto('sounds')
        .values({
          user_id: input.userId,
          pack_id: input.packId ?? null,
          name: input.name,
          description: input.description ?? '',
          license: input.license,
          category: input.category ?? null,
          subcategory: input.subcategory ?? null,
          category_code: categoryCode(input.category, input.subcategory),
          category_is_user_provided: input.categoryIsUserProvided ?? input.category != null,
          geotag_lat: input.geotag?.lat ?? null,
          geotag_lon: input.geotag?.lon ?? null,
          geotag_zoom: input.geotag?.zoom ?? null,
          is_explicit: input.isExplicit ?? false,
          original_filename: input.originalFilename,
          original_path: input.originalPath,
          md5: input.md5 ?? null,
          filesize: input.filesize ?? null,
          crc32: input.crc32 ?? null,
          type: input.type ?? null,
          channels: null,
          bitrate: null,
          bitdepth: null,
          duration: null,
          samplerate: null,
          ...QUEUED_RECORD,
          moderated_by: null,
          moderation_state: moderation,
          ...(moderation === 'ok' ? { moderated_at: new Date() } : {}),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (isUniqueViolation(err, 'sounds_md5_idx')) throw new DuplicateSoundFileError();
      throw err;
    }
    await replaceSoundTags(trx, inserted.id, input.tags);
    if (input.remixOf?.length) await setRemixSources(trx, inserted.id, input.remixOf);
    return soundViews(trx).where('sounds.id', '=', inserted.id).executeTakeFirstOrThrow();
  });
}

/** Any sound by id, whatever its state (moderation, workers). */
export function getSound(db: Db, id: number): Promise<SoundView | undefined> {
  return soundViews(db).where('sounds.id', '=', id).executeTakeFirst();
}

/** A sound by id only when it is public (the API's Sound Instance answers 404 otherwise). */
export function getPublicSound(db: Db, id: number): Promise<SoundView | undefined> {
  return soundViews(db).where('sounds.id', '=', id).where(isPublic).executeTakeFirst();
}

/** Public sounds by ids, in the order of `ids` (search results come back as ids). */
export async function getPublicSounds(db: Db, ids: readonly number[]): Promise<SoundView[]> {
  if (ids.length === 0) return [];
  const rows = await soundViews(db).where('sounds.id', 'in', ids).where(isPublic).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

async function pageOf(
  db: Db,
  where: (
    qb: SelectQueryBuilder<Database, 'sounds' | 'users' | 'packs', SoundView>,
  ) => SelectQueryBuilder<Database, 'sounds' | 'users' | 'packs', SoundView>,
  page: PageRequest,
  order: 'asc' | 'desc' = 'desc',
): Promise<Page<SoundView>> {
  const base = where(soundViews(db));
  const [countRow, items] = await Promise.all([
    base
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
    base
      .orderBy('sounds.created', order)
      .orderBy('sounds.id', order)
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(countRow.count), items };
}

/** The user's public sounds, newest first. */
export function listSoundsByUser(db: Db, userId: number, page: PageRequest): Promise<Page<SoundView>> {
  return pageOf(db, (qb) => qb.where('sounds.user_id', '=', userId).where(isPublic), page);
}

/** The pack's public sounds, newest first. */
export function listSoundsByPack(db: Db, packId: number, page: PageRequest): Promise<Page<SoundView>> {
  return pageOf(db, (qb) => qb.where('sounds.pack_id', '=', packId).where(isPublic), page);
}

/** The uploader's sounds that are not public yet, split as the pending-uploads record shows them. */
export async function listPendingSounds(
  db: Db,
  userId: number,
): Promise<{ pending_processing: SoundView[]; pending_moderation: SoundView[] }> {
  const rows = await soundViews(db)
    .where('sounds.user_id', '=', userId)
    .where((eb) => eb.not(isPublic(eb)))
    .where('sounds.moderation_state', '<>', 'rejected')
    .orderBy('sounds.created', 'desc')
    .orderBy('sounds.id', 'desc')
    .execute();
  return {
    pending_processing: rows.filter((s) => s.processing_state !== 'Processed'),
    pending_moderation: rows.filter(
      (s) => s.processing_state === 'Processed' && s.moderation_state === 'pending_moderation',
    ),
  };
}

/**
 * Sounds waiting for a moderator, oldest first: the processed ones (what a moderator can listen
 * to), or with `includeUnprocessed` every one (the CLI lists them with their processing state).
 */
export function listModerationQueue(
  db: Db,
  page: PageRequest,
  options: { includeUnprocessed?: boolean } = {},
): Promise<Page<SoundView>> {
  return pageOf(
    db,
    (qb) => {
      const pending = qb.where('sounds.moderation_state', '=', 'pending_moderation');
      return options.includeUnprocessed
        ? pending
        : pending.where('sounds.processing_state', '=', 'Processed');
    },
    page,
    'asc',
  );
}

export interface SoundEdit {
  name?: string;
  description?: string;
  /** Replaces all tags. */
  tags?: readonly string[];
  license?: LicenseName;
  /** Taxonomy names; when either changes, `category_code` is derived again. */
  category?: string | null;
  subcategory?: string | null;
  categoryIsUserProvided?: boolean;
  geotag?: Geotag | null;
  packId?: number | null;
  isExplicit?: boolean;
}

/**
 * Changes only the given fields (the edit resource's rule). The search document's triggers lock
 * word counts shared with other sounds, so two edits at once may deadlock: the victim runs again.
 */
export function editSound(db: Db, id: number, edit: SoundEdit): Promise<void> {
  return inRetriedTransaction(db, async (trx) => {
    const set: SoundUpdate = {};
    if (edit.name !== undefined) set.name = edit.name;
    if (edit.description !== undefined) set.description = edit.description;
    if (edit.license !== undefined) set.license = edit.license;
    if (edit.category !== undefined || edit.subcategory !== undefined) {
      const current = await trx
        .selectFrom('sounds')
        .select(['category', 'subcategory'])
        .where('id', '=', id)
        .executeTakeFirst();
      set.category = edit.category === undefined ? (current?.category ?? null) : edit.category;
      set.subcategory = edit.subcategory === undefined ? (current?.subcategory ?? null) : edit.subcategory;
      set.category_code = categoryCode(set.category, set.subcategory);
    }
    if (edit.categoryIsUserProvided !== undefined)
      set.category_is_user_provided = edit.categoryIsUserProvided;
    if (edit.packId !== undefined) set.pack_id = edit.packId;
    if (edit.isExplicit !== undefined) set.is_explicit = edit.isExplicit;
    if (edit.geotag !== undefined) {
      set.geotag_lat = edit.geotag?.lat ?? null;
      set.geotag_lon = edit.geotag?.lon ?? null;
      set.geotag_zoom = edit.geotag?.zoom ?? null;
    }
    if (Object.keys(set).length) await trx.updateTable('sounds').set(set).where('id', '=', id).execute();
    if (edit.tags !== undefined) await replaceSoundTags(trx, id, edit.tags);
  });
}

/** Links a sound to the sounds it remixes and keeps both sides' `is_remix`/`was_remixed` flags true to the links. */
export function setRemixSources(db: Db, soundId: number, sourceIds: readonly number[]): Promise<void> {
  return inTransaction(db, async (trx) => {
    const previous = await trx
      .selectFrom('sound_remixes')
      .select('source_id')
      .where('sound_id', '=', soundId)
      .execute();
    await trx.deleteFrom('sound_remixes').where('sound_id', '=', soundId).execute();
    const sources = [...new Set(sourceIds)].filter((id) => id !== soundId);
    if (sources.length) {
      await trx
        .insertInto('sound_remixes')
        .values(sources.map((source_id) => ({ sound_id: soundId, source_id })))
        .execute();
    }
    await trx
      .updateTable('sounds')
      .set({ is_remix: sources.length > 0 })
      .where('id', '=', soundId)
      .execute();
    const touched = [...new Set([...sources, ...previous.map((p) => p.source_id)])];
    if (touched.length) {
      await trx
        .updateTable('sounds')
        .set({
          was_remixed: sql<boolean>`exists (select 1 from sound_remixes r where r.source_id = sounds.id)`,
        })
        .where('id', 'in', touched)
        .execute();
    }
  });
}

/** The probe values the catalogue keeps in columns (the rest of core's probe is not stored). */
export type ProbeColumns = Pick<
  ProbeResult,
  'type' | 'channels' | 'filesize' | 'bitrate' | 'bitdepth' | 'duration' | 'samplerate' | 'md5'
> &
  Partial<Pick<ProbeResult, 'crc32'>>;

/**
 * Stores the probe's columns; with `advance`, the same UPDATE is the lifecycle's `advance` (the
 * next stage recorded as due) and is refused unless the sound is being processed.
 */
export async function setProbe(
  db: Db,
  id: number,
  probe: ProbeColumns,
  advance?: StageAdvance,
): Promise<void> {
  const set = {
    type: probe.type,
    channels: probe.channels,
    filesize: probe.filesize,
    bitrate: probe.bitrate,
    bitdepth: probe.bitdepth,
    duration: probe.duration,
    samplerate: probe.samplerate,
    md5: probe.md5,
    // Kept when this probe did not read the file (its md5 came from the upload).
    ...(probe.crc32 !== undefined ? { crc32: probe.crc32 } : {}),
  };
  try {
    if (advance) await updateThrough(db, id, 'advance', { ...set, ...advanceColumns(advance) });
    else await db.updateTable('sounds').set(set).where('id', '=', id).execute();
  } catch (err) {
    if (isUniqueViolation(err, 'sounds_md5_idx')) throw new DuplicateSoundFileError();
    throw err;
  }
}

/** Another sound holding a file with this md5 (upstream refuses a file already in the catalogue). */
export async function findSoundIdByMd5(db: Db, md5: string, exceptId?: number): Promise<number | undefined> {
  let query = db.selectFrom('sounds').select('id').where('md5', '=', md5);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst())?.id;
}

/**
 * Records where generated files (previews, images, analysis files) were written, merged into the
 * existing ones; with `advance`, the same UPDATE records the next stage as due (see setProbe).
 */
export async function setMediaPaths(
  db: Db,
  id: number,
  paths: Record<string, string>,
  advance?: StageAdvance,
): Promise<void> {
  const media_paths = sql<Record<string, string>>`media_paths || ${JSON.stringify(paths)}::jsonb`;
  if (advance) await updateThrough(db, id, 'advance', { media_paths, ...advanceColumns(advance) });
  else await db.updateTable('sounds').set({ media_paths }).where('id', '=', id).execute();
}

/** Where the stored original lives, relative to DATA_DIR (known once the new sound has its id). */
export async function setOriginalPath(db: Db, id: number, originalPath: string): Promise<void> {
  await db.updateTable('sounds').set({ original_path: originalPath }).where('id', '=', id).execute();
}

/** What the pipeline reads of a sound to process it. */
export interface SoundSource {
  id: number;
  /** Relative to DATA_DIR. */
  original_path: string;
  original_filename: string;
  /** The uploader's sounds skip moderation. */
  is_trusted: boolean;
}

export function getSoundSource(db: Db, id: number): Promise<SoundSource | undefined> {
  return db
    .selectFrom('sounds')
    .innerJoin('users', 'users.id', 'sounds.user_id')
    .select(['sounds.id', 'sounds.original_path', 'sounds.original_filename', 'users.is_trusted'])
    .where('sounds.id', '=', id)
    .executeTakeFirst();
}

/** True when the catalogue holds at least one sound (the demo import fills an empty one only). */
export async function hasSounds(db: Db): Promise<boolean> {
  return (await db.selectFrom('sounds').select('id').limit(1).executeTakeFirst()) !== undefined;
}

export async function deleteSound(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('sounds').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
