import type { ProcessingFailure, ProcessingRecord, StageAdvance, StoredAnalysis } from '@earshot/catalogue';
import type { ProbeResult, VariantATree } from '@earshot/core';
import type { StageName } from './stages.ts';

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

export interface MediaFiles {
  /** Paths relative to DATA_DIR, keyed by the contract's names (preview-hq-mp3, waveform_m, …). */
  [key: string]: string;
}

/** What the analysis stage hands the catalogue: the files it wrote and the analysis itself. */
export interface AnalysisToSave {
  analysisPath: string;
  framesPath?: string;
  otherPaths?: MediaFiles;
  analysis: StoredAnalysis;
}

/**
 * The pipeline's view of the catalogue: the sound's processing record (the catalogue's own
 * `ProcessingRecord`; its stage is text, read as a stage name with `asStage`) and the results each stage
 * stores. One adapter implements it on @earshot/catalogue's repositories (the sound state machine
 * among them); the stages and hooks use nothing else. Every state change is one of the state
 * machine's transitions, refused (IllegalTransitionError) when the sound has moved on.
 */
export interface PipelineStore {
  soundToProcess(soundId: number): Promise<SoundToProcess | undefined>;
  processingRecord(soundId: number): Promise<ProcessingRecord | undefined>;
  /** `start`: an attempt of `stage` begins. Progress is the sound's overall 0–1 (`stageAt`). */
  recordStart(soundId: number, attempt: StageAdvance<StageName> & { attempts: number }): Promise<void>;
  /** `progress`: how far the running stage is. */
  recordProgress(soundId: number, update: StageAdvance<StageName>): Promise<void>;
  /** `advance`: `next` is due (its first attempt). */
  recordAdvance(soundId: number, next: StageAdvance<StageName>): Promise<void>;
  /** `fail`. */
  recordFailure(soundId: number, failure: ProcessingFailure<StageName>): Promise<void>;
  /** The save methods take `advance`: the same write also records the next stage as due (see ADVANCED_BY_HANDLER). */
  saveProbe(soundId: number, probe: ProbeResult, advance?: StageAdvance<StageName>): Promise<void>;
  saveMedia(soundId: number, files: MediaFiles, advance?: StageAdvance<StageName>): Promise<void>;
  saveAnalysis(soundId: number, analysis: AnalysisToSave, advance?: StageAdvance<StageName>): Promise<void>;
  loadAnalysis(soundId: number): Promise<VariantATree | undefined>;
  saveSimilarityVector(soundId: number, space: string, vector: Float32Array): Promise<void>;
  /**
   * Estimates the category of a sound whose uploader gave none from its vector in the category
   * space (the services' estimateSoundCategory); a sound with its uploader's category is untouched.
   */
  estimateCategory(soundId: number, vector: Float32Array): Promise<void>;
  /** Retrains the category model when enough new labels arrived, and estimates again (retrainCategoryModel). */
  retrainCategoryModel(signal: AbortSignal): Promise<void>;
  /** Removes the events and webhook delivery attempts past their retention (the services' pruneEvents). */
  pruneEvents(): Promise<{ events: number; deliveries: number }>;
  /** Removes the cursor walks whose keeping time has passed (the catalogue's pruneListWalks). */
  pruneListWalks(): Promise<{ walks: number; ids: number }>;
  /**
   * `finish`: marks the sound Processed and hands it to moderation; a trusted uploader's sound is
   * approved at once. Returns where it went.
   */
  finishProcessing(soundId: number): Promise<'pending_moderation' | 'approved'>;
  /** Sounds whose processing has not ended (Queued or Processing), oldest first. */
  unfinished(limit: number): Promise<Array<{ id: number; stage: StageName }>>;
}
