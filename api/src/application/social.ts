import type { BookmarkCategoryView, ChangeVersion } from '@earshot/catalogue';
import type { BookmarkCategories, Downloads, FeedbackInput, SoundFeedback } from '@earshot/services';
import type { ListRequest } from './api-context.ts';
import { ID_LISTS, type ListWalks, walkIdList } from './list-walks.ts';
import { pageWindow, resolvePage } from './paging.ts';
import type { Page, SoundRecord } from './records.ts';
import type { SoundRecords } from './sound-records.ts';

/** The write side the social routes stand on: use cases of @earshot/services bound to the catalogue. */
export interface SocialPorts {
  feedback: SoundFeedback;
  bookmarks: BookmarkCategories;
  downloads: Downloads;
}

/**
 * Ratings, comments, bookmarks and downloads for the API. A write returns only once this process's
 * caches (rendered sounds, sound records, search pages) have heard of it: the client that rates and
 * then reads the sound or searches by rating sees its write, whichever way the catalogue reports
 * changes (the embedded counter or the server's notifications).
 */
export class SocialService {
  constructor(
    readonly ports: SocialPorts,
    private readonly records: SoundRecords,
    private readonly changes: ChangeVersion | undefined,
    private readonly walks: ListWalks,
  ) {}

  rate(userId: number, soundId: number, input: FeedbackInput) {
    return this.written(this.ports.feedback.rate(userId, soundId, input));
  }

  comment(userId: number, soundId: number, input: FeedbackInput) {
    return this.written(this.ports.feedback.comment(userId, soundId, input));
  }

  bookmark(userId: number, soundId: number, input: FeedbackInput) {
    return this.written(this.ports.feedback.bookmark(userId, soundId, input));
  }

  /** Counts a download; the count shows on the next read like any other write. */
  async countSoundDownload(soundId: number, userId: number): Promise<void> {
    await this.ports.downloads.countSoundDownload(soundId, userId);
    await this.changes?.current();
  }

  async countPackDownload(packId: number, userId: number): Promise<void> {
    await this.ports.downloads.countPackDownload(packId, userId);
    await this.changes?.current();
  }

  async categories(userId: number, req: ListRequest): Promise<Page<BookmarkCategoryView>> {
    const all = await this.ports.bookmarks.list(userId);
    const { page, offset } = resolvePage(req.page, all.length);
    const items = all.slice(offset, offset + req.page.pageSize);
    return { items, count: all.length, page, pageSize: req.page.pageSize };
  }

  async categorySounds(userId: number, categoryId: number, req: ListRequest): Promise<Page<SoundRecord>> {
    if (req.cursor !== undefined) {
      return walkIdList(
        this.walks,
        this.records,
        req.cursor,
        { pageSize: req.page.pageSize, reads: req.reads },
        ID_LISTS.bookmarks(userId, categoryId),
        (window) => this.ports.bookmarks.soundIds(userId, categoryId, window),
      );
    }
    const wanted = req.page.page === 'last' ? undefined : req.page.page;
    const count =
      wanted === undefined
        ? (await this.ports.bookmarks.soundIds(userId, categoryId, { limit: 0, offset: 0 })).count
        : undefined;
    const pageNumber = wanted ?? Math.max(1, Math.ceil((count ?? 0) / req.page.pageSize));
    const slice = await this.ports.bookmarks.soundIds(
      userId,
      categoryId,
      pageWindow(pageNumber, req.page.pageSize),
    );
    const { page } = resolvePage({ ...req.page, page: pageNumber }, slice.count);
    const hits = { count: slice.count, items: slice.items.map((id) => ({ id })) };
    return this.records.page(hits, page, req.page.pageSize, req.reads);
  }

  /** The write's message (what it did), once this process's caches have heard of the write. */
  private async written(write: Promise<string>): Promise<string> {
    const message = await write;
    await this.changes?.current();
    return message;
  }
}
