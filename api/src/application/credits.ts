import type { PageRequest } from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';
import { type BookmarkCategories, type SoundCredit, soundCredit } from '@earshot/services';
import type { CatalogueReader } from './ports.ts';

/** Which sounds a credits file is for: a list of ids, a pack, or one of the caller's bookmark categories. */
export type CreditsSelection =
  | { ids: readonly number[] }
  | { pack: number }
  | { bookmarkCategory: number; userId: number };

/** A credits file: the credit of every public sound of the selection, in the selection's order. */
export interface CreditsFile {
  title: string;
  sounds: SoundCredit[];
  /** Ids asked for by a list that are not public sounds (deleted, hidden, not yet moderated, or never were). */
  missing: number[];
}

/** A user's bookmark categories and their public sound ids, a window at a time (404 for another user's). */
export type BookmarkedSounds = Pick<BookmarkCategories, 'list' | 'soundIds'>;

/** Sounds read per statement when a pack or a category is walked. */
const WINDOW = 1000;

/**
 * Credits files for any selection of sounds (`/apiv2/credits/`): the same credit a pack's zip
 * carries, for a list of ids, a pack or a bookmark category, so a project that uses sounds can
 * print its attribution without a download.
 */
export class CreditsService {
  constructor(
    private readonly catalogue: Pick<CatalogueReader, 'soundsByIds' | 'packById' | 'packSounds'>,
    private readonly bookmarks?: BookmarkedSounds,
  ) {}

  async credits(selection: CreditsSelection, origin: string): Promise<CreditsFile> {
    if ('ids' in selection) {
      const ids = [...new Set(selection.ids)];
      const rows = await this.catalogue.soundsByIds(ids);
      const shown = new Set(rows.map((r) => r.id));
      return {
        title: `${rows.length} sound${rows.length === 1 ? '' : 's'}`,
        sounds: rows.map((row) => soundCredit(origin, row)),
        missing: ids.filter((id) => !shown.has(id)),
      };
    }
    if ('pack' in selection) {
      const pack = await this.catalogue.packById(selection.pack);
      if (!pack) throw new NotFoundError('No Pack matches the given query.');
      const ids = await walk((window) => this.catalogue.packSounds(selection.pack, window));
      return {
        title: `Pack "${pack.name}" by ${pack.username}`,
        sounds: await this.creditsOf(ids, origin),
        missing: [],
      };
    }
    const bookmarks = this.bookmarks;
    if (!bookmarks) throw new NotFoundError('Bookmarks are not served here.');
    const { userId, bookmarkCategory } = selection;
    const ids = await walk((window) => bookmarks.soundIds(userId, bookmarkCategory, window));
    const category = (await bookmarks.list(userId)).find((c) => c.id === bookmarkCategory);
    return {
      title: `Bookmarks of ${category ? `"${category.name}"` : 'no category'}`,
      sounds: await this.creditsOf(ids, origin),
      missing: [],
    };
  }

  private async creditsOf(ids: readonly number[], origin: string): Promise<SoundCredit[]> {
    const credits: SoundCredit[] = [];
    for (let i = 0; i < ids.length; i += WINDOW) {
      const rows = await this.catalogue.soundsByIds(ids.slice(i, i + WINDOW));
      for (const row of rows) credits.push(soundCredit(origin, row));
    }
    return credits;
  }
}

/** Every id of a paged list, window by window (a list that changes meanwhile may repeat one: kept once). */
async function walk(
  read: (window: PageRequest) => Promise<{ count: number; items: number[] }>,
): Promise<number[]> {
  const ids = new Set<number>();
  for (let offset = 0; ; offset += WINDOW) {
    const page = await read({ limit: WINDOW, offset });
    for (const id of page.items) ids.add(id);
    if (page.items.length < WINDOW || offset + WINDOW >= page.count) return [...ids];
  }
}
