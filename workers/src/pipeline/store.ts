import type { StageAdvance, StageName } from './stages.ts';

/** `processing_state` values (DECISIONS.md). */
export type ProcessingState = 'Queued' | 'Processing' | 'Failed' | 'Processed';

/** What the pipeline needs to know about a sound to process it. */
export interface SoundToProcess {
  id: number;
  /** Absolute path of the stored original. */
  originalPath: string;
  /** The name the uploader gave the file (its extension is checked against the content). */
  originalFilename: string;
  /** Uploader may skip moderation. */
  uploaderTrusted: boolean;
}

export interface ProcessingRecord {
  id: number;
  state: ProcessingState;
  stage: StageName;
  progress: number;
  attempts: number;
  failureReason: string | null;
  /** When the record last changed. */
  updatedAt?: Date;
}

export interface MediaFiles {
  /** Paths relative to DATA_DIR, keyed by the contract's names (preview-hq-mp3, waveform_m, …). */
  [key: string]: string;
}

/**
 * The pipeline's view of the catalogue: the sound's processing record and the results each stage
 * stores. One adapter implements it on @earshot/catalogue; the stages and hooks use nothing else.
 */
export interface PipelineStore {
  soundToProcess(soundId: number): Promise<SoundToProcess | undefined>;
  processingRecord(soundId: number): Promise<ProcessingRecord | undefined>;
  /** Sets the state, stage and overall progress; `attempts` when a new attempt starts. */
  recordProgress(
    soundId: number,
    update: { state: 'Queued' | 'Processing'; stage: StageName; progress: number; attempts?: number },
  ): Promise<void>;
  recordFailure(
    soundId: number,
    failure: { stage: StageName; reason: string; detail?: string; attempts: number },
  ): Promise<void>;
  /** The save methods take `advance`: the same write also records the next stage as due (see ADVANCED_BY_HANDLER). */
  saveProbe(soundId: number, probe: unknown, advance?: StageAdvance): Promise<void>;
  saveMedia(soundId: number, files: MediaFiles, advance?: StageAdvance): Promise<void>;
  saveAnalysis(
    soundId: number,
    analysis: { analysisPath: string; framesPath?: string; otherPaths?: MediaFiles; descriptors: unknown },
    advance?: StageAdvance,
  ): Promise<void>;
  loadAnalysis(soundId: number): Promise<unknown>;
  saveSimilarityVector(soundId: number, space: string, vector: Float32Array): Promise<void>;
  /**
   * Marks the sound Processed and hands it to moderation; a trusted uploader's sound is approved at
   * once. Returns where it went.
   */
  finishProcessing(soundId: number): Promise<'pending_moderation' | 'approved'>;
  /** Sounds whose processing has not ended (Queued or Processing), oldest first. */
  unfinished(limit: number): Promise<Array<{ id: number; stage: StageName }>>;
  failedSoundIds(): Promise<number[]>;
}
