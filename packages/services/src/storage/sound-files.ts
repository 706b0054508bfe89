import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces `target` with the file `fill` writes at a temporary name beside it, so a reader sees the
 * old file or the whole new one, never half of it.
 */
export async function replaceFile(target: string, fill: (temp: string) => Promise<void>): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true });
  const temp = `${target}.${randomBytes(4).toString('hex')}.partial`;
  try {
    await fill(temp);
    await fs.rename(temp, target);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/**
 * Where a sound's files live under DATA_DIR: `sounds/<id % 1000>/<id>/`. The original sits at the
 * top, each stage writes its outputs into its own subfolder. Every write goes to a staging folder
 * first and is renamed into place, so readers see old or new files, never half-written ones.
 */
export class SoundStorage {
  readonly root: string;

  constructor(readonly dataDir: string) {
    this.root = path.join(dataDir, 'sounds');
  }

  soundDir(soundId: number): string {
    if (!Number.isSafeInteger(soundId) || soundId <= 0) throw new Error(`bad sound id ${soundId}`);
    return path.join(this.root, String(soundId % 1000), String(soundId));
  }

  /** The original upload; the extension is kept because tools and downloads read it. */
  originalPath(soundId: number, originalName: string): string {
    const ext = path
      .extname(originalName)
      .toLowerCase()
      .replace(/[^.a-z0-9]/g, '');
    return path.join(this.soundDir(soundId), `original${ext}`);
  }

  /** The folder holding the outputs of one stage. */
  outputDir(soundId: number, stage: string): string {
    return path.join(this.soundDir(soundId), stage);
  }

  /** Files one stage leaves for a later one (caches: see pipeline/hand-off.ts); removed once the sound is processed. */
  workFile(soundId: number, name: string): string {
    return path.join(this.soundDir(soundId), 'work', name);
  }

  async removeWork(soundId: number): Promise<void> {
    await fs.rm(path.join(this.soundDir(soundId), 'work'), { recursive: true, force: true });
  }

  /** Copies a file in as the sound's original (copy then rename: never a partial original). */
  async storeOriginal(soundId: number, sourcePath: string, originalName: string): Promise<string> {
    const target = this.originalPath(soundId, originalName);
    await replaceFile(target, (temp) => fs.copyFile(sourcePath, temp));
    return target;
  }

  /** Moves a file of the data folder in as the sound's original (one rename on the same filesystem). */
  async moveOriginal(soundId: number, sourcePath: string, originalName: string): Promise<string> {
    const target = this.originalPath(soundId, originalName);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(sourcePath, target);
    return target;
  }

  /**
   * Gives `write` a fresh empty folder, then swaps it in as the stage's output folder. Leftovers of
   * an earlier attempt of the same stage (a worker killed mid-job) are removed first: the queue's
   * fixed job ids make this attempt the only one running.
   */
  async replaceStageOutput<T>(
    soundId: number,
    stage: string,
    write: (dir: string) => Promise<T>,
  ): Promise<T> {
    const soundDir = this.soundDir(soundId);
    await fs.mkdir(soundDir, { recursive: true });
    await this.removeLeftovers(soundId, stage);
    const staging = path.join(soundDir, `.staging-${stage}-${randomBytes(4).toString('hex')}`);
    await fs.mkdir(staging);
    try {
      const result = await write(staging);
      const target = this.outputDir(soundId, stage);
      const retired = `${staging}.old`;
      await fs.rename(target, retired).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await fs.rename(staging, target);
      await fs.rm(retired, { recursive: true, force: true });
      return result;
    } catch (err) {
      await fs.rm(staging, { recursive: true, force: true });
      throw err;
    }
  }

  async removeLeftovers(soundId: number, stage: string): Promise<void> {
    const soundDir = this.soundDir(soundId);
    const entries = await fs.readdir(soundDir).catch(() => [] as string[]);
    await Promise.all(
      entries
        .filter((name) => name.startsWith(`.staging-${stage}-`))
        .map((name) => fs.rm(path.join(soundDir, name), { recursive: true, force: true })),
    );
  }

  /** Deletes everything of a sound (used when a sound is deleted). */
  async removeSound(soundId: number): Promise<void> {
    await fs.rm(this.soundDir(soundId), { recursive: true, force: true });
  }

  /** A path relative to DATA_DIR, as the catalogue stores it (the data folder can move). */
  relative(absolute: string): string {
    return path.relative(this.dataDir, absolute);
  }

  absolute(relativeToDataDir: string): string {
    return path.resolve(this.dataDir, relativeToDataDir);
  }
}
