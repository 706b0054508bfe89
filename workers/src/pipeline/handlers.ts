import fs from 'node:fs/promises';
import path from 'node:path';
import type { StageAdvance } from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import { CATEGORY_SPACE, type ProbeResult } from '@earshot/core';
import type { SoundStorage } from '@earshot/services';
import { PermanentJobError } from '../jobs/errors.ts';
import type { JobContext } from '../jobs/registry.ts';
import {
  ANALYSIS_DIR,
  analysisFileNames,
  PROBE_FILE,
  readAnalysisHandOff,
  readProbe,
  SIGNAL_FILE,
  writeAtomically,
} from './hand-off.ts';
import { ADVANCED_BY_HANDLER, advanceAfter, type StageName } from './stages.ts';
import type { PipelineStore, SoundToProcess } from './store.ts';
import type { MediaTools } from './tools.ts';

export interface StageDeps {
  store: PipelineStore;
  storage: SoundStorage;
  tools: MediaTools;
  /** Told about new similarity vectors, e.g. an in-process index; the catalogue already has them. */
  onSimilarityVectors?: (soundId: number, vectors: Array<{ space: string; vector: Float32Array }>) => void;
  /** Makes the bulk export again when it is due (the catalogue-wide export job); absent: no such job. */
  exportCatalogue?: (signal: AbortSignal) => Promise<void>;
}

export type StageHandler = (ctx: JobContext, deps: StageDeps) => Promise<void>;

/** User errors (a bad file) will not get better on retry; timeouts and crashes might. */
function permanentIfUserError(err: unknown): unknown {
  if (err instanceof EarshotError && err.status < 500 && err.code !== 'timeout') {
    const details = err.details as { stderr?: string } | undefined;
    return new PermanentJobError(err.message, details?.stderr, { cause: err });
  }
  return err;
}

async function soundOf(ctx: JobContext, deps: StageDeps): Promise<SoundToProcess> {
  const sound = await deps.store.soundToProcess(ctx.soundId);
  if (!sound) throw new PermanentJobError('The sound no longer exists.');
  return sound;
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw permanentIfUserError(err);
  }
}

interface Reporter {
  report: (percent: number) => void;
  /** Waits for the writes under way and stops further ones: call before the stage's last save. */
  settle: () => Promise<void>;
}

/**
 * Progress writes one after the other, all done before the stage's own save: a progress write
 * names the stage, so one landing after the save's advance would put the sound back a stage.
 */
export function reporter(ctx: JobContext): Reporter {
  let last = -10;
  let closed = false;
  let writes = Promise.resolve();
  return {
    report: (percent) => {
      // A catalogue write per 10 % is plenty for a progress bar.
      if (closed || (percent - last < 10 && percent < 100)) return;
      last = percent;
      writes = writes.then(() => ctx.progress(percent)).catch(() => {});
    },
    settle: () => {
      closed = true;
      return writes;
    },
  };
}

const probe: StageHandler = async (ctx, deps) => {
  const sound = await soundOf(ctx, deps);
  const result = await guarded(() =>
    deps.tools.probe(sound.originalPath, sound.originalFilename, { signal: ctx.signal }),
  );
  // The hand-off first: the save below may already mark the next stage as due.
  await writeAtomically(deps.storage.workFile(ctx.soundId, PROBE_FILE), JSON.stringify(result), ctx.signal);
  await deps.store.saveProbe(ctx.soundId, result, advance(ctx));
};

/** The record of the next stage, written with this stage's last save (ADVANCED_BY_HANDLER). */
function advance(ctx: JobContext): StageAdvance<StageName> | undefined {
  const name = ctx.name as StageName;
  return ADVANCED_BY_HANDLER.has(name) ? advanceAfter(name) : undefined;
}

/** The probe stage's result, when it left one (absent after an upgrade or a lost folder: tools probe again). */
function probeOf(ctx: JobContext, deps: StageDeps): Promise<ProbeResult | undefined> {
  return readProbe(deps.storage.workFile(ctx.soundId, PROBE_FILE));
}

const media: StageHandler = async (ctx, deps) => {
  const sound = await soundOf(ctx, deps);
  const probe = await probeOf(ctx, deps);
  const signalFile = deps.storage.workFile(ctx.soundId, SIGNAL_FILE);
  const analysisHandOff = deps.storage.workFile(ctx.soundId, ANALYSIS_DIR);
  // A signal or analysis left by an earlier run belongs to whatever the original was then.
  await fs.rm(signalFile, { force: true });
  await fs.rm(analysisHandOff, { recursive: true, force: true });
  const progress = reporter(ctx);
  const rendered = await deps.storage.replaceStageOutput(ctx.soundId, 'media', (dir) =>
    guarded(() =>
      deps.tools.renderMedia(sound.originalPath, dir, {
        signal: ctx.signal,
        onProgress: progress.report,
        probe,
        signalFile,
        analysisHandOff,
      }),
    ),
  );
  const finalDir = deps.storage.outputDir(ctx.soundId, 'media');
  const files: Record<string, string> = {};
  for (const [key, name] of Object.entries(rendered.files)) {
    files[key] = deps.storage.relative(path.join(finalDir, name));
  }
  await progress.settle();
  await deps.store.saveMedia(ctx.soundId, files, advance(ctx));
};

const analysis: StageHandler = async (ctx, deps) => {
  const sound = await soundOf(ctx, deps);
  const probe = await probeOf(ctx, deps);
  const signalFile = deps.storage.workFile(ctx.soundId, SIGNAL_FILE);
  const handOff = deps.storage.workFile(ctx.soundId, ANALYSIS_DIR);
  const made = await readAnalysisHandOff(handOff);
  const progress = reporter(ctx);
  const out = await deps.storage.replaceStageOutput(ctx.soundId, 'analysis', async (dir) => {
    if (made) {
      // Made by the media stage: the files move in (one rename each), nothing is computed again.
      for (const name of analysisFileNames(made))
        await fs.rename(path.join(handOff, name), path.join(dir, name));
      return made;
    }
    return guarded(() =>
      deps.tools.analyze(sound.originalPath, dir, {
        signal: ctx.signal,
        onProgress: progress.report,
        probe,
        signalFile,
      }),
    );
  });
  await progress.settle();
  const finalDir = deps.storage.outputDir(ctx.soundId, 'analysis');
  const rel = (name: string) => deps.storage.relative(path.join(finalDir, name));
  await deps.store.saveAnalysis(
    ctx.soundId,
    {
      analysisPath: rel(out.analysisFile),
      framesPath: out.framesFile ? rel(out.framesFile) : undefined,
      otherPaths: Object.fromEntries(
        Object.entries(out.extraFiles ?? {}).map(([key, name]) => [key, rel(name)]),
      ),
      analysis: out.analysis,
    },
    advance(ctx),
  );
  await fs.rm(signalFile, { force: true });
  await fs.rm(handOff, { recursive: true, force: true });
};

const similarity: StageHandler = async (ctx, deps) => {
  const stored = await deps.store.loadAnalysis(ctx.soundId);
  if (stored === undefined) throw new Error('the analysis of this sound is missing');
  const vectors = await guarded(async () => deps.tools.similarityVectors(stored));
  for (const { space, vector } of vectors) await deps.store.saveSimilarityVector(ctx.soundId, space, vector);
  const categoryInput = vectors.find((v) => v.space === CATEGORY_SPACE);
  if (categoryInput) await deps.store.estimateCategory(ctx.soundId, categoryInput.vector);
  deps.onSimilarityVectors?.(ctx.soundId, vectors);
};

const handover: StageHandler = async (ctx, deps) => {
  // The hand-off folder goes before the sound is recorded as processed, not after: whoever reads
  // "Processed" in the catalogue (the API, a test, a reprocess that starts a new run) must find the
  // sound's folder holding its outputs only, and a late removal could delete what the first stage
  // of a reprocess has just written there. Nothing of this run reads `work/` after the analysis.
  await deps.storage.removeWork(ctx.soundId);
  const outcome = await deps.store.finishProcessing(ctx.soundId);
  ctx.logger.info({ outcome }, 'sound processed');
};

/** Retrains the category model when labels have grown enough (a catalogue-wide job, not a stage). */
export const retrainCategories = (ctx: JobContext, deps: StageDeps): Promise<void> =>
  deps.store.retrainCategoryModel(ctx.signal);

export const pruneEventsJob = async (_ctx: JobContext, deps: StageDeps): Promise<void> => {
  await deps.store.pruneEvents();
};

export const pruneListWalksJob = async (_ctx: JobContext, deps: StageDeps): Promise<void> => {
  await deps.store.pruneListWalks();
};

export const STAGE_HANDLERS: Record<StageName, StageHandler> = {
  probe,
  media,
  analysis,
  similarity,
  handover,
};
