import {
  advanceStage,
  type Db,
  failProcessing,
  findSoundIdByMd5,
  finishProcessing,
  getAnalysisTree,
  getProcessingRecord,
  getSoundSource,
  listUnfinishedSounds,
  type ProcessingFailure,
  type ProcessingRecord,
  pruneListWalks,
  reportProgress,
  type StageAdvance,
  setAnalysis,
  setMediaPaths,
  setProbe,
  setSimilarityVector,
  startStage,
  withSoundLease,
} from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import type { ProbeResult, StoredFileKind, VariantATree } from '@earshot/core';
import {
  type EventRetention,
  estimateSoundCategory,
  pruneEvents,
  retrainCategoryModel,
  type SoundStorage,
} from '@earshot/services';
import { PermanentJobError } from '../jobs/errors.ts';
import { leaseInScope } from './lease.ts';
import { asStage, STAGES, type StageName } from './stages.ts';
import type { AnalysisToSave, MediaFiles, PipelineStore, SoundToProcess } from './store.ts';

const LAST_STAGE: StageName = STAGES[STAGES.length - 1].name;

/** EVENTS_RETENTION_DAYS and WEBHOOK_LOG_RETENTION_DAYS's defaults. */
export const DEFAULT_EVENT_RETENTION: EventRetention = { eventsDays: 30, deliveriesDays: 14 };

/** PipelineStore on the catalogue's repositories. */
export class CatalogueStore implements PipelineStore {
  constructor(
    private readonly db: Db,
    private readonly storage: SoundStorage,
    private readonly logger?: Logger,
    private readonly retention: EventRetention = DEFAULT_EVENT_RETENTION,
  ) {}

  async soundToProcess(soundId: number): Promise<SoundToProcess | undefined> {
    const row = await getSoundSource(this.db, soundId);
    if (!row) return undefined;
    return {
      id: row.id,
      originalPath: this.storage.absolute(row.original_path),
      originalFilename: row.original_filename,
      uploaderTrusted: row.is_trusted,
    };
  }

  processingRecord(soundId: number): Promise<ProcessingRecord | undefined> {
    return getProcessingRecord(this.db, soundId);
  }

  /**
   * Runs a write under the running job's lease of the sound when there is one (fencing: refused with
   * SoundLeaseLostError once another process took the sound over); as is outside a job (the reconciler).
   */
  private fenced<T>(soundId: number, write: (db: Db) => Promise<T>): Promise<T> {
    const lease = leaseInScope();
    return lease?.soundId === soundId ? withSoundLease(this.db, lease, write) : write(this.db);
  }

  recordStart(soundId: number, attempt: StageAdvance<StageName> & { attempts: number }) {
    return this.fenced(soundId, (db) => startStage(db, soundId, attempt));
  }

  recordProgress(soundId: number, update: StageAdvance<StageName>) {
    return this.fenced(soundId, (db) => reportProgress(db, soundId, update));
  }

  recordAdvance(soundId: number, next: StageAdvance<StageName>) {
    return this.fenced(soundId, (db) => advanceStage(db, soundId, next));
  }

  /**
   * A sound failed for good: its `work/` folder goes (the hand-off caches of its stages, up to a
   * decoded signal: nothing reads them again, and a reprocess starts from the probe), then the
   * failure is recorded. In that order, as the handover does: whoever reads "Failed" finds no
   * leftovers. Both ways a final failure is recorded come here: the job's failure hook and the
   * reconciler's repair of one the catalogue missed.
   */
  async recordFailure(soundId: number, failure: ProcessingFailure<StageName>): Promise<void> {
    await this.storage.removeWork(soundId);
    await this.fenced(soundId, (db) => failProcessing(db, soundId, failure));
  }

  async saveProbe(soundId: number, probe: ProbeResult, advance?: StageAdvance<StageName>): Promise<void> {
    // Upstream refuses a file already in the catalogue; the uploader reads which sound has it.
    const twin = await findSoundIdByMd5(this.db, probe.md5, soundId);
    if (twin !== undefined)
      throw new PermanentJobError(`This file is already in the catalogue (sound ${twin}).`);
    await this.fenced(soundId, (db) => setProbe(db, soundId, probe, advance));
  }

  async saveMedia(soundId: number, files: MediaFiles, advance?: StageAdvance<StageName>): Promise<void> {
    await this.fenced(soundId, (db) => setMediaPaths(db, soundId, files, advance));
  }

  async saveAnalysis(
    soundId: number,
    saved: AnalysisToSave,
    advance?: StageAdvance<StageName>,
  ): Promise<void> {
    await this.fenced(soundId, async (db) => {
      await setAnalysis(db, soundId, saved.analysis);
      await setMediaPaths(
        db,
        soundId,
        {
          ...saved.otherPaths,
          analysis_stats: saved.analysisPath,
          ...(saved.framesPath ? { analysis_frames: saved.framesPath } : {}),
        } satisfies Partial<Record<StoredFileKind, string>>,
        advance,
      );
    });
  }

  loadAnalysis(soundId: number): Promise<VariantATree | undefined> {
    return getAnalysisTree(this.db, soundId);
  }

  saveSimilarityVector(soundId: number, space: string, vector: Float32Array): Promise<void> {
    return this.fenced(soundId, (db) => setSimilarityVector(db, soundId, space, Array.from(vector)));
  }

  async estimateCategory(soundId: number, vector: Float32Array): Promise<void> {
    await this.fenced(soundId, (db) => estimateSoundCategory(db, soundId, vector, this.logger));
  }

  async retrainCategoryModel(signal: AbortSignal): Promise<void> {
    await retrainCategoryModel(this.db, { signal, logger: this.logger });
  }

  async pruneEvents(): Promise<{ events: number; deliveries: number }> {
    const removed = await pruneEvents(this.db, this.retention);
    if (removed.events || removed.deliveries)
      this.logger?.info(removed, 'events: removed events and delivery attempts past their retention');
    return removed;
  }

  async pruneListWalks(): Promise<{ walks: number; ids: number }> {
    const removed = await pruneListWalks(this.db);
    if (removed.walks) this.logger?.info(removed, 'list walks: removed the expired cursor walks');
    return removed;
  }

  finishProcessing(soundId: number): Promise<'pending_moderation' | 'approved'> {
    return this.fenced(soundId, (db) => finishProcessing(db, soundId, LAST_STAGE));
  }

  async unfinished(limit: number): Promise<Array<{ id: number; stage: StageName }>> {
    const rows = await listUnfinishedSounds(this.db, limit);
    return rows.map((r) => ({ id: r.id, stage: asStage(r.stage) }));
  }
}
