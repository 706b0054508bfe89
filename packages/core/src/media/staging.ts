import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Outputs are written into a hidden folder inside the destination (same filesystem) and renamed
 * into place only when every one of them succeeded, so a reader never sees a half-written file
 * and a failure leaves nothing behind.
 */
export class Staging {
  private constructor(
    readonly outDir: string,
    readonly dir: string,
    /** The first folder this run created on the way to outDir (removed again on failure), if any. */
    private readonly createdRoot: string | undefined,
  ) {}

  static async create(outDir: string): Promise<Staging> {
    const resolved = path.resolve(outDir);
    const createdRoot = await fs.mkdir(resolved, { recursive: true });
    const dir = path.join(resolved, `.staging-${randomBytes(6).toString('hex')}`);
    await fs.mkdir(dir);
    return new Staging(resolved, dir, createdRoot);
  }

  /** Where to write `name` (a path relative to the output folder) while staging. */
  path(name: string): string {
    const resolved = path.resolve(this.dir, name);
    if (!resolved.startsWith(this.dir + path.sep))
      throw new RangeError(`output name escapes the output folder: ${name}`);
    return resolved;
  }

  /** Renames every named file into the output folder; returns their final paths. */
  async commit(names: string[]): Promise<string[]> {
    const moved: string[] = [];
    try {
      for (const name of names) {
        const target = path.join(this.outDir, path.relative(this.dir, this.path(name)));
        await fs.mkdir(path.dirname(target), { recursive: true });
        await fs.rename(this.path(name), target);
        moved.push(target);
      }
    } catch (err) {
      await Promise.all(moved.map((file) => fs.rm(file, { force: true })));
      throw err;
    } finally {
      await this.discard();
    }
    return moved;
  }

  /** Removes the staging folder (after a commit, or on failure with `abandon`). */
  async discard(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }

  /** Failure: removes the staging folder and any folders this run created, so nothing is left. */
  async abandon(): Promise<void> {
    await this.discard();
    if (this.createdRoot) await fs.rm(this.createdRoot, { recursive: true, force: true });
  }
}
