import type { Database, DescriptorValues } from '@earshot/catalogue';
import { type Kysely, sql } from 'kysely';
import { PermanentJobError } from '../jobs/errors.ts';
import type { SoundStorage } from '../storage/sound-files.ts';
import { isStage, type StageAdvance, type StageName } from './stages.ts';
import type { MediaFiles, PipelineStore, ProcessingRecord, SoundToProcess } from './store.ts';

interface ProgressUpdate {
  state: 'Queued' | 'Processing';
  stage: StageName;
  progress: number;
  attempts?: number;
}

/** The analysis as the descriptors stage hands it to the catalogue. */
export interface StoredAnalysis {
  /** Full Essentia-layout tree (variant A); the similarity spaces read it. */
  tree: Record<string, unknown>;
  /** Consolidated flat record (variant B). */
  flat: Record<string, unknown>;
  /** The filterable descriptor columns. */
  values: DescriptorValues;
  analyzer?: string;
}

/** Probe values the catalogue keeps in columns (the rest of the probe result is not stored). */
interface ProbeColumns {
  type: 'wav' | 'aif' | 'aiff' | 'ogg' | 'mp3' | 'm4a' | 'flac';
  channels: number;
  filesize: number;
  bitrate: number;
  bitdepth: number;
  duration: number;
  samplerate: number;
  md5: string;
}

/** PipelineStore on the catalogue's `sounds`, `sound_descriptors` and `sound_similarity_vectors`. */
export class CatalogueStore implements PipelineStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly storage: SoundStorage,
  ) {}

  async soundToProcess(soundId: number): Promise<SoundToProcess | undefined> {
    const row = await this.db
      .selectFrom('sounds')
      .innerJoin('users', 'users.id', 'sounds.user_id')
      .select(['sounds.id', 'sounds.original_path', 'sounds.original_filename', 'users.is_trusted'])
      .where('sounds.id', '=', soundId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      originalPath: this.storage.absolute(row.original_path),
      originalFilename: row.original_filename,
      uploaderTrusted: row.is_trusted,
    };
  }

  async processingRecord(soundId: number): Promise<ProcessingRecord | undefined> {
    const row = await this.db
      .selectFrom('sounds')
      .select([
        'id',
        'processing_state',
        'processing_stage',
        'processing_progress',
        'processing_attempts',
        'processing_error',
        'processing_updated',
      ])
      .where('id', '=', soundId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      state: row.processing_state,
      stage: asStage(row.processing_stage),
      progress: Math.round(row.processing_progress * 100),
      attempts: row.processing_attempts,
      failureReason: row.processing_error,
      updatedAt: row.processing_updated ? new Date(row.processing_updated) : undefined,
    };
  }

  async recordProgress(soundId: number, update: ProgressUpdate): Promise<void> {
    await this.db.updateTable('sounds').set(progressColumns(update)).where('id', '=', soundId).execute();
  }

  async recordFailure(
    soundId: number,
    failure: { stage: StageName; reason: string; detail?: string; attempts: number },
  ): Promise<void> {
    // First line: the reason an uploader reads. After a blank line: the tool's own words, for operators.
    const text =
      failure.detail && failure.detail !== failure.reason
        ? `${failure.reason}\n\n${failure.detail}`
        : failure.reason;
    await this.db
      .updateTable('sounds')
      .set({
        processing_state: 'Failed',
        processing_stage: failure.stage,
        processing_attempts: failure.attempts,
        processing_error: text,
        processing_updated: new Date(),
      })
      .where('id', '=', soundId)
      .execute();
  }

  async saveProbe(soundId: number, probe: unknown, advance?: StageAdvance): Promise<void> {
    const p = probe as ProbeColumns;
    const twin = await this.db
      .selectFrom('sounds')
      .select('id')
      .where('md5', '=', p.md5)
      .where('id', '<>', soundId)
      .executeTakeFirst();
    if (twin) throw new PermanentJobError(`This file is already in the catalogue (sound ${twin.id}).`);
    await this.db
      .updateTable('sounds')
      .set({
        type: p.type,
        channels: p.channels,
        filesize: p.filesize,
        bitrate: p.bitrate,
        bitdepth: p.bitdepth,
        duration: p.duration,
        samplerate: p.samplerate,
        md5: p.md5,
        ...advanced(advance),
      })
      .where('id', '=', soundId)
      .execute();
  }

  async saveMedia(soundId: number, files: MediaFiles, advance?: StageAdvance): Promise<void> {
    await this.mergeMediaPaths(soundId, files, advance);
  }

  async saveAnalysis(
    soundId: number,
    analysis: { analysisPath: string; framesPath?: string; otherPaths?: MediaFiles; descriptors: unknown },
    advance?: StageAdvance,
  ): Promise<void> {
    const stored = analysis.descriptors as StoredAnalysis;
    const row = {
      ...stored.values,
      analysis_a: stored.tree,
      analysis_b: stored.flat,
      ...(stored.analyzer ? { analyzer: stored.analyzer } : {}),
      updated: new Date(),
    };
    await this.db
      .insertInto('sound_descriptors')
      .values({ sound_id: soundId, ...row } as never)
      .onConflict((oc) => oc.column('sound_id').doUpdateSet(row as never))
      .execute();
    await this.mergeMediaPaths(
      soundId,
      {
        ...analysis.otherPaths,
        analysis_stats: analysis.analysisPath,
        ...(analysis.framesPath ? { analysis_frames: analysis.framesPath } : {}),
      },
      advance,
    );
  }

  async loadAnalysis(soundId: number): Promise<unknown> {
    const row = await this.db
      .selectFrom('sound_descriptors')
      .select('analysis_a')
      .where('sound_id', '=', soundId)
      .executeTakeFirst();
    return row?.analysis_a;
  }

  async saveSimilarityVector(soundId: number, space: string, vector: Float32Array): Promise<void> {
    const values = Array.from(vector);
    await this.db
      .insertInto('sound_similarity_vectors')
      .values({ sound_id: soundId, space, vector: values, updated: new Date() })
      .onConflict((oc) =>
        oc.columns(['sound_id', 'space']).doUpdateSet({ vector: values, updated: new Date() }),
      )
      .execute();
  }

  async finishProcessing(soundId: number): Promise<'pending_moderation' | 'approved'> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx
        .selectFrom('sounds')
        .innerJoin('users', 'users.id', 'sounds.user_id')
        .select(['sounds.moderation_state', 'users.is_trusted'])
        .where('sounds.id', '=', soundId)
        .executeTakeFirstOrThrow();
      const approve = row.is_trusted && row.moderation_state === 'pending_moderation';
      await tx
        .updateTable('sounds')
        .set({
          processing_state: 'Processed',
          processing_stage: 'handover',
          processing_progress: 1,
          processing_error: null,
          processing_updated: new Date(),
          ...(approve ? { moderation_state: 'ok' as const, moderated_at: new Date() } : {}),
        })
        .where('id', '=', soundId)
        .execute();
      return approve || row.moderation_state === 'ok' ? 'approved' : 'pending_moderation';
    });
  }

  async unfinished(limit: number): Promise<Array<{ id: number; stage: StageName }>> {
    const rows = await this.db
      .selectFrom('sounds')
      .select(['id', 'processing_stage'])
      .where('processing_state', 'in', ['Queued', 'Processing'])
      .where('moderation_state', '<>', 'pending_description')
      .orderBy('processing_updated')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, stage: asStage(r.processing_stage) }));
  }

  async failedSoundIds(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('sounds')
      .select('id')
      .where('processing_state', '=', 'Failed')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  private async mergeMediaPaths(
    soundId: number,
    paths: Record<string, string>,
    advance?: StageAdvance,
  ): Promise<void> {
    await this.db
      .updateTable('sounds')
      .set({ media_paths: sql`media_paths || ${JSON.stringify(paths)}::jsonb`, ...advanced(advance) })
      .where('id', '=', soundId)
      .execute();
  }
}

/** The columns of a sound's processing record. */
function progressColumns(update: ProgressUpdate) {
  return {
    processing_state: update.state,
    processing_stage: update.stage,
    processing_progress: Math.max(0, Math.min(1, update.progress / 100)),
    ...(update.attempts === undefined ? {} : { processing_attempts: update.attempts }),
    processing_error: null,
    processing_updated: new Date(),
  };
}

/** The columns that record the next stage as due (its first attempt), or nothing. */
function advanced(advance: StageAdvance | undefined) {
  if (!advance) return {};
  return progressColumns({ state: 'Processing', ...advance, attempts: 1 });
}

/** A stage name read back from the catalogue; anything unknown starts over from the first stage. */
function asStage(stage: string | null): StageName {
  return stage && isStage(stage) ? stage : 'probe';
}
