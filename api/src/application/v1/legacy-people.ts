import type { Page, PageRequest, UserRecord } from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';
import type { LegacyPresenter, V1Extras } from '../../v1/presenters/legacy-presenter.ts';
import { serializeV1BookmarkCategory, serializeV1Pack, serializeV1User } from '../../v1/presenters/people.ts';
import type { CatalogueReader } from '../ports.ts';
import { type V1ListRequest, type V1SoundPage, v1SoundPage, v1Window } from './paging.ts';
import type { LegacyReader } from './ports.ts';

/** All of a user's packs fit one answer: the version 1 pack list is not paged. */
const ALL = { limit: 10_000, offset: 0 };

/** Users, packs and bookmark categories, and the sound lists hanging off them, in version 1 shapes. */
export class LegacyPeople {
  constructor(
    private readonly catalogue: CatalogueReader,
    private readonly legacy: LegacyReader,
    private readonly presenter: LegacyPresenter,
  ) {}

  async user(username: string, origin: string) {
    return serializeV1User(await this.findUser(username), origin);
  }

  async userSounds(username: string, req: V1ListRequest): Promise<V1SoundPage> {
    const user = await this.findUser(username);
    return this.soundPage(req, (window) => this.catalogue.userSounds(user.id, window));
  }

  async userPacks(username: string, origin: string) {
    const user = await this.findUser(username);
    const packs = await this.catalogue.userPacks(user.id, ALL);
    return { num_results: packs.count, packs: packs.items.map((p) => serializeV1Pack(p, origin)) };
  }

  /** The categories, then 'Uncategorized bookmarks' when the user has loose bookmarks. */
  async bookmarkCategories(username: string, origin: string) {
    const user = await this.findUser(username);
    const all = await this.legacy.bookmarkCategories(user.id);
    const ordered = [...all.filter((c) => c.id !== 0), ...all.filter((c) => c.id === 0)];
    return {
      num_results: ordered.length,
      categories: ordered.map((c) => serializeV1BookmarkCategory(c, user.username, origin)),
    };
  }

  /** `category` is a category id or `uncategorized`; each sound carries its `bookmark_name`. */
  async bookmarkedSounds(username: string, category: string, req: V1ListRequest): Promise<V1SoundPage> {
    const user = await this.findUser(username);
    const categoryId = category === 'uncategorized' ? 0 : /^\d{1,9}$/.test(category) ? Number(category) : -1;
    if (categoryId < 0 || !(await this.legacy.hasBookmarkCategory(user.id, categoryId))) {
      throw new NotFoundError(`Bookmark category ${category} does not exist.`);
    }
    const slice = await this.legacy.bookmarkedSounds(user.id, categoryId, v1Window(req.page));
    const names = new Map(slice.items.map((s) => [s.id, s.bookmark_name]));
    const sounds = await this.presenter.present(slice.items, req.links.origin, {
      fields: req.fields,
      extras: (record) => ({ bookmark_name: names.get(record.id) || record.name }),
    });
    return v1SoundPage(req, slice.count, sounds);
  }

  async pack(id: number, origin: string) {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError(`Pack with id ${id} does not exist.`);
    return serializeV1Pack(pack, origin);
  }

  async packSounds(id: number, req: V1ListRequest): Promise<V1SoundPage> {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError(`Pack with id ${id} does not exist.`);
    return this.soundPage(req, (window) => this.catalogue.packSounds(id, window));
  }

  private async findUser(username: string): Promise<UserRecord> {
    const user = await this.catalogue.userByName(username);
    if (!user) throw new NotFoundError(`User ${username} does not exist.`);
    return user;
  }

  private async soundPage(
    req: V1ListRequest,
    read: (window: PageRequest) => Promise<Page<number>>,
    extras?: V1Extras,
  ): Promise<V1SoundPage> {
    const slice = await read(v1Window(req.page));
    const sounds = await this.presenter.present(
      slice.items.map((id) => ({ id })),
      req.links.origin,
      { fields: req.fields, extras },
    );
    return v1SoundPage(req, slice.count, sounds);
  }
}
