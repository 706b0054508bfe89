import {
  advanceStage,
  type StageAdvance as CatalogueAdvance,
  type Db,
  failProcessing,
  findSoundIdByMd5,
  finishProcessing,
  getAnalysisTree,
  getProcessingRecord,
  getSoundSource,
  listUnfinishedSounds,
  reportProgress,
  setAnalysis,
  setMediaPaths,
  setProbe,
  setSimilarityVector,
  startStage,
} from '@earshot/catalogue';
import type { ProbeResult, VariantATree } from '@earshot/core';
import type { SoundStorage } from '@earshot/services';
import { PermanentJobError } from '../jobs/errors.ts';
import { isStage, STAGES, type StageAdvance, type StageName } from './stages.ts';
import type { AnalysisToSave, MediaFiles, PipelineStore, ProcessingRecord, SoundToProcess } from './store.ts';

const LAST_STAGE: StageName = STAGES[STAGES.length - 1].name;

/** PipelineStore on the catalogue's repositories; the pipeline counts progress in %, the catalogue in 0–1. */
export class CatalogueStore implements PipelineStore {
  constructor(
    private readonly db: Db,
    private readonly storage: SoundStorage,
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

  async processingRecord(soundId: number): Promise<ProcessingRecord | undefined> {
    const row = await getProcessingRecord(this.db, soundId);
    if (!row) return undefined;
    return {
      id: row.id,
      state: row.state,
      stage: asStage(row.stage),
      progress: Math.round(row.progress * 100),
      attempts: row.attempts,
      failureReason: row.error,
      updatedAt: row.updated,
    };
  }

  recordStart(soundId: number, attempt: { stage: StageName; progress: number; attempts: number }) {
    return startStage(this.db, soundId, { ...attempt, progress: attempt.progress / 100 });
  }

  recordProgress(soundId: number, update: { stage: StageName; progress: number }) {
    return reportProgress(this.db, soundId, { ...update, progress: update.progress / 100 });
  }

  recordAdvance(soundId: number, next: StageAdvance) {
    return advanceStage(this.db, soundId, inCatalogue(next)!);
  }

  recordFailure(
    soundId: number,
    failure: { stage: StageName; reason: string; detail?: string; attempts: number },
  ): Promise<void> {
    return failProcessing(this.db, soundId, failure);
  }

  async saveProbe(soundId: number, probe: ProbeResult, advance?: StageAdvance): Promise<void> {
    // Upstream refuses a file already in the catalogue; the uploader reads which sound has it.
    const twin = await findSoundIdByMd5(this.db, probe.md5, soundId);
    if (twin !== undefined)
      throw new PermanentJobError(`This file is already in the catalogue (sound ${twin}).`);
    await setProbe(this.db, soundId, probe, inCatalogue(advance));
  }

  async saveMedia(soundId: number, files: MediaFiles, advance?: StageAdvance): Promise<void> {
    await setMediaPaths(this.db, soundId, files, inCatalogue(advance));
  }

  async saveAnalysis(soundId: number, saved: AnalysisToSave, advance?: StageAdvance): Promise<void> {
    await setAnalysis(this.db, soundId, saved.analysis);
    await setMediaPaths(
      this.db,
      soundId,
      {
        ...saved.otherPaths,
        analysis_stats: saved.analysisPath,
        ...(saved.framesPath ? { analysis_frames: saved.framesPath } : {}),
      },
      inCatalogue(advance),
    );
  }

  loadAnalysis(soundId: number): Promise<VariantATree | undefined> {
    return getAnalysisTree(this.db, soundId);
  }

  saveSimilarityVector(soundId: number, space: string, vector: Float32Array): Promise<void> {
    return setSimilarityVector(this.db, soundId, space, Array.from(vector));
  }

  finishProcessing(soundId: number): Promise<'pending_moderation' | 'approved'> {
    return finishProcessing(this.db, soundId, LAST_STAGE);
  }

  async unfinished(limit: number): Promise<Array<{ id: number; stage: StageName }>> {
    const rows = await listUnfinishedSounds(this.db, limit);
    return rows.map((r) => ({ id: r.id, stage: asStage(r.stage) }));
  }
}

function inCatalogue(advance: StageAdvance | undefined): CatalogueAdvance | undefined {
  return advance && { stage: advance.stage, progress: advance.progress / 100 };
}

/** A stage name read back from the catalogue; none yet (a queued sound) or unknown starts from the first stage. */
function asStage(stage: string | null): StageName {
  return stage && isStage(stage) ? stage : 'probe';
}
