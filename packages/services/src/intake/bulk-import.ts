import fs from 'node:fs/promises';
import path from 'node:path';
import {
  type Db,
  listSettledSounds,
  type RetryWhileUnavailableOptions,
  retryWhileUnavailable,
} from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import { ACCEPTED_TYPES } from '@earshot/core';
import type { ProcessingQueue } from '../processing/processing-queue.ts';
import { DescriptionError, validateDescription } from './description-fields.ts';
import { readSidecar, type SidecarMetadata } from './sidecar.ts';
import type { SoundIntake } from './sound-intake.ts';

const AUDIO_EXTENSIONS = new Set(ACCEPTED_TYPES.map((type) => `.${type}`));

/** The files to import: files as given, folders walked for audio files (sorted, so runs repeat). */
export async function collectFiles(paths: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const p of paths) {
    const abs = path.resolve(p);
    const stat = await fs.stat(abs).catch(() => undefined);
    if (!stat) throw new ValidationError(`No such file or folder: ${p}`);
    if (stat.isFile()) found.push(abs);
    else if (stat.isDirectory()) {
      const entries = await fs.readdir(abs, { recursive: true, withFileTypes: true });
      for (const e of entries) {
        if (e.isFile() && AUDIO_EXTENSIONS.has(path.extname(e.name).toLowerCase())) {
          found.push(path.join(e.parentPath, e.name));
        }
      }
    }
  }
  return [...new Set(found)].sort();
}

export interface ImportOptions {
  userId: number;
  packName?: string;
  approve?: boolean;
  /** Description fields for a file when it has no sidecar (the demo import uses it). */
  describe?: (file: string) => SidecarMetadata | undefined;
  onQueued?: (file: string, soundId: number) => void;
  /** How long a file is tried again while the catalogue cannot be reached, and who hears of it. */
  retry?: RetryWhileUnavailableOptions;
}

export interface QueuedFile {
  file: string;
  soundId: number;
}

/**
 * Creates a sound for each file (description from its sidecar) and submits it to the pipeline. A
 * change of the database's host on the way (its process died) costs no file and doubles none: each
 * file becomes exactly one sound (`SoundIntake.createOnce`), and the submit that cannot reach the
 * queue leaves the sound to the reconciler.
 */
export async function queueImports(
  intake: SoundIntake,
  queue: ProcessingQueue,
  files: string[],
  options: ImportOptions,
): Promise<QueuedFile[]> {
  const queued: QueuedFile[] = [];
  const csvCache = new Map();
  for (const file of files) {
    const meta = { ...options.describe?.(file), ...(await readSidecar(file, csvCache)) };
    const d = checkSidecar(file, meta);
    const soundId = await intake.createOnce(
      {
        userId: options.userId,
        file,
        name: d.name,
        tags: d.tags,
        description: d.description,
        license: d.license,
        // A taxonomy code wins over names given in the sidecar's category/subcategory columns.
        category: d.category ?? meta.category,
        subcategory: d.category ? d.subcategory : meta.subcategory,
        geotag: d.geotag,
        packName: options.packName,
        approve: options.approve,
      },
      options.retry,
    );
    await queue.submit(soundId);
    queued.push({ file, soundId });
    options.onQueued?.(file, soundId);
  }
  return queued;
}

/** A sidecar's fields through the upload's validator (import mode: no minimum tag count). */
function checkSidecar(file: string, meta: SidecarMetadata) {
  try {
    return validateDescription(
      {
        name: meta.name,
        tags: meta.tags,
        description: meta.description,
        license: meta.license,
        bst_category: meta.bst_category,
        geotag: meta.geotag,
      },
      'import',
    );
  } catch (err) {
    if (err instanceof DescriptionError) throw new ValidationError(`${file}: ${err.message}`, err.fields);
    throw err;
  }
}

export interface ImportOutcome extends QueuedFile {
  state: 'Processed' | 'Failed';
  reason?: string;
}

/**
 * Waits until every sound is Processed or Failed, wherever the workers run, by watching the
 * catalogue (a look that cannot reach it is made again: its host may be changing). `onUpdate` gets
 * the counts after each look.
 */
export async function waitForSounds(
  db: Db,
  queued: QueuedFile[],
  onUpdate?: (done: number, failed: number) => void,
  { pollMs = 250, retry }: { pollMs?: number; retry?: RetryWhileUnavailableOptions } = {},
): Promise<ImportOutcome[]> {
  const byId = new Map(queued.map((q) => [q.soundId, q]));
  const outcomes = new Map<number, ImportOutcome>();
  while (outcomes.size < queued.length) {
    const open = [...byId.keys()].filter((id) => !outcomes.has(id));
    for (let i = 0; i < open.length; i += 500) {
      const part = open.slice(i, i + 500);
      for (const settled of await retryWhileUnavailable(() => listSettledSounds(db, part), retry)) {
        outcomes.set(settled.id, { ...byId.get(settled.id)!, state: settled.state, reason: settled.reason });
      }
    }
    const failed = [...outcomes.values()].filter((o) => o.state === 'Failed').length;
    onUpdate?.(outcomes.size, failed);
    if (outcomes.size < queued.length) await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return queued.map((q) => outcomes.get(q.soundId)!);
}
