import type { Page as CataloguePage, PackView, PageRequest, UserRecord } from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';
import { ID_LISTS, type ListWalks, walkIdList } from '../list-walks.ts';
import type { CatalogueReader } from '../ports.ts';
import type { SoundRecords } from '../sound-records.ts';
import { type V1ListRequest, v1Window } from './paging.ts';
import type { LegacyReader } from './ports.ts';
import { type V1BookmarkCategories, type V1SoundPageRecord, v1Page } from './records.ts';

/** All of a user's packs fit one answer: the version 1 pack list is not paged. */
const ALL = { limit: 10_000, offset: 0 };

/** Users, packs and bookmark categories, and the sound lists hanging off them, as version 1 reads them. */
export class LegacyPeople {
  constructor(
    private readonly catalogue: CatalogueReader,
    private readonly legacy: LegacyReader,
    private readonly records: SoundRecords,
    private readonly walks: ListWalks,
  ) {}

  user(username: string): Promise<UserRecord> {
    return this.findUser(username);
  }

  async userSounds(username: string, req: V1ListRequest): Promise<V1SoundPageRecord> {
    const user = await this.findUser(username);
    return this.soundPage(req, ID_LISTS.userSounds(user.id), (window) =>
      this.catalogue.userSounds(user.id, window),
    );
  }

  async userPacks(username: string): Promise<CataloguePage<PackView>> {
    const user = await this.findUser(username);
    return this.catalogue.userPacks(user.id, ALL);
  }

  /** The categories, then 'Uncategorized bookmarks' when the user has loose bookmarks. */
  async bookmarkCategories(username: string): Promise<V1BookmarkCategories> {
    const user = await this.findUser(username);
    const all = await this.legacy.bookmarkCategories(user.id);
    return {
      username: user.username,
      categories: [...all.filter((c) => c.id !== 0), ...all.filter((c) => c.id === 0)],
    };
  }

  /** `category` is a category id or `uncategorized`; each sound carries its bookmark's name. */
  async bookmarkedSounds(username: string, category: string, req: V1ListRequest): Promise<V1SoundPageRecord> {
    const user = await this.findUser(username);
    const categoryId = category === 'uncategorized' ? 0 : /^\d{1,9}$/.test(category) ? Number(category) : -1;
    if (categoryId < 0 || !(await this.legacy.hasBookmarkCategory(user.id, categoryId))) {
      throw new NotFoundError(`Bookmark category ${category} does not exist.`);
    }
    const named = async (page: V1SoundPageRecord, names?: Map<number, string>) => {
      names ??= await this.legacy.bookmarkNames(
        user.id,
        page.items.map((r) => r.sound.id),
      );
      return {
        ...page,
        items: page.items.map((record) => ({
          ...record,
          bookmarkName: names.get(record.sound.id) || record.sound.name,
        })),
      };
    };
    if (req.cursor !== undefined) {
      // The same list as version 2's category walk; the bookmarks' names are read for each page.
      return named(
        await this.soundPage(req, ID_LISTS.bookmarks(user.id, categoryId), async (window) => {
          const slice = await this.legacy.bookmarkedSounds(user.id, categoryId, window);
          return { count: slice.count, items: slice.items.map((s) => s.id) };
        }),
      );
    }
    const slice = await this.legacy.bookmarkedSounds(user.id, categoryId, v1Window(req.page));
    const names = new Map(slice.items.map((s) => [s.id, s.bookmark_name]));
    return named(v1Page(req.page, slice.count, await this.records.read(slice.items)), names);
  }

  async pack(id: number): Promise<PackView> {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError(`Pack with id ${id} does not exist.`);
    return pack;
  }

  async packSounds(id: number, req: V1ListRequest): Promise<V1SoundPageRecord> {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError(`Pack with id ${id} does not exist.`);
    return this.soundPage(req, ID_LISTS.packSounds(id), (window) => this.catalogue.packSounds(id, window));
  }

  private async findUser(username: string): Promise<UserRecord> {
    const user = await this.catalogue.userByName(username);
    if (!user) throw new NotFoundError(`User ${username} does not exist.`);
    return user;
  }

  private async soundPage(
    req: V1ListRequest,
    key: string,
    read: (window: PageRequest) => Promise<CataloguePage<number>>,
  ): Promise<V1SoundPageRecord> {
    if (req.cursor !== undefined) {
      const page = await walkIdList(
        this.walks,
        this.records,
        req.cursor,
        { pageSize: req.page.perPage },
        key,
        read,
      );
      return { ...page, page: req.page.p };
    }
    const slice = await read(v1Window(req.page));
    return v1Page(req.page, slice.count, await this.records.read(slice.items.map((id) => ({ id }))));
  }
}
