import {
  countLabelledSounds,
  type Db,
  getCategoryModel,
  listLabelledVectors,
  listUnlabelledVectors,
  saveCategoryModel,
  setEstimatedCategory,
} from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import {
  CATEGORY_SPACE,
  type CategoryModel,
  categoryModelDue,
  estimateCategory,
  MAX_SOUNDS_PER_LABEL,
  parseCategoryModel,
  trainCategoryModelInWorker,
} from '@earshot/core';

/** The stored model, or undefined when none was trained yet (or it was stored for another shape). */
async function currentModel(db: Db, logger?: Logger): Promise<CategoryModel | undefined> {
  const stored = await getCategoryModel(db, CATEGORY_SPACE);
  if (!stored) return undefined;
  try {
    return parseCategoryModel(stored.model);
  } catch (err) {
    // A damaged row estimates nothing until the next training replaces it.
    logger?.warn({ err }, 'the stored category model is unusable; no category is estimated');
    return undefined;
  }
}

/**
 * Estimates the category of a sound whose uploader gave none, from its vector in the category
 * space, and stores it (`category_is_user_provided` stays false). Below the confidence threshold
 * the category is left empty (an earlier estimate is cleared). No model yet: nothing is written.
 * A sound with its uploader's category is never touched (the catalogue's UPDATE guards it).
 * Returns the estimate (null: below the threshold), undefined when there is no model.
 */
export async function estimateSoundCategory(
  db: Db,
  soundId: number,
  vector: ArrayLike<number>,
  logger?: Logger,
): Promise<string | null | undefined> {
  const model = await currentModel(db, logger);
  if (!model) return undefined;
  const code = estimateCategory(model, vector)?.label ?? null;
  await setEstimatedCategory(db, soundId, code);
  return code;
}

export interface CategoryTraining {
  /** False when the labels had not grown enough since the last training, or too few labels can be learned. */
  trained: boolean;
  labelledSounds: number;
  /** The labels the model learned. */
  labels: string[];
  /** Sounds whose estimated category changed. */
  changed: number;
  /** Why nothing was trained: few labels since the last training, or too few to learn two labels. */
  notTrained?: 'not due' | 'too few labels';
}

const PAGE = 500;

/** Rounds of training one run may do while labels keep arriving during it. */
const MAX_ROUNDS = 5;

/**
 * Retrains the category model when the labelled sounds have grown enough since it was trained
 * (`categoryModelDue`; `force` retrains anyway), stores it, then estimates again the category of
 * every sound whose uploader gave none. Labels that arrive while it trains are counted again at the
 * end of each round (a job queued meanwhile was dropped as a duplicate of this running one), and
 * train another round when they are enough. Running it twice at once (two hosts) is harmless: both
 * store the same model.
 */
export async function retrainCategoryModel(
  db: Db,
  options: { force?: boolean; logger?: Logger; signal?: AbortSignal } = {},
): Promise<CategoryTraining> {
  let trainedOn = (await getCategoryModel(db, CATEGORY_SPACE))?.labelledSounds ?? 0;
  let labelled = 0;
  let model: CategoryModel | undefined;
  let notTrained: CategoryTraining['notTrained'] = 'not due';
  for (let round = 0; round < MAX_ROUNDS; round++) {
    labelled = await countLabelledSounds(db, CATEGORY_SPACE);
    const forced = options.force === true && round === 0;
    if (!forced && !categoryModelDue(labelled, trainedOn)) break;
    const examples = await listLabelledVectors(db, CATEGORY_SPACE, MAX_SOUNDS_PER_LABEL);
    const trained = await trainCategoryModelInWorker(examples, options.signal);
    if (!trained) {
      notTrained = 'too few labels';
      break;
    }
    options.signal?.throwIfAborted();
    await saveCategoryModel(db, CATEGORY_SPACE, trained, labelled);
    model = trained;
    trainedOn = labelled;
  }
  if (!model) return { trained: false, labelledSounds: labelled, labels: [], changed: 0, notTrained };
  let changed = 0;
  for (let after = 0; ; ) {
    options.signal?.throwIfAborted();
    const page = await listUnlabelledVectors(db, CATEGORY_SPACE, after, PAGE);
    for (const sound of page) {
      if (await setEstimatedCategory(db, sound.id, estimateCategory(model, sound.vector)?.label ?? null))
        changed++;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1].id;
  }
  options.logger?.info(
    { labelledSounds: trainedOn, labels: model.labels, changed },
    'category model trained; estimated categories updated',
  );
  return { trained: true, labelledSounds: trainedOn, labels: model.labels, changed };
}
