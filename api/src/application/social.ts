import type { ChangeVersion } from '@earshot/catalogue';
import type { BookmarkCategories, Downloads, FeedbackInput, SoundFeedback } from '@earshot/services';
import { type PageEnvelope, pageEnvelope, pageWindow, resolvePage } from '../framework/http/pagination.ts';
import { serializeBookmarkCategory } from '../v2/presenters/bookmark-category.ts';
import type { BookmarkCategoryJson, SoundJson } from '../v2/presenters/schemas.ts';
import { type SoundPresenter, soundsPage } from '../v2/presenters/sound-presenter.ts';
import type { ListRequest } from './api-context.ts';

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
    private readonly presenter: SoundPresenter,
    private readonly changes: ChangeVersion | undefined,
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

  async categories(
    userId: number,
    req: Omit<ListRequest, 'selection'>,
  ): Promise<PageEnvelope<BookmarkCategoryJson>> {
    const all = await this.ports.bookmarks.list(userId);
    const { page, offset } = resolvePage(req.page, all.length);
    const slice = all.slice(offset, offset + req.page.pageSize);
    return pageEnvelope(
      req.links,
      page,
      req.page.pageSize,
      all.length,
      slice.map((c) => serializeBookmarkCategory(c, req.links.origin)),
    );
  }

  async categorySounds(
    userId: number,
    categoryId: number,
    req: ListRequest,
  ): Promise<PageEnvelope<SoundJson | null>> {
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
    const results = await this.presenter.present(
      slice.items.map((id) => ({ id })),
      { origin: req.links.origin, variant: this.presenter.variant, selection: req.selection },
      req.variantA,
    );
    return soundsPage(req.links, page, req.page.pageSize, slice.count, results);
  }

  private async written(write: Promise<string>): Promise<{ detail: string }> {
    const detail = await write;
    await this.changes?.current();
    return { detail };
  }
}
