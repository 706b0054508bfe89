import type { Page as CataloguePage, PackView, PageRequest, UserRecord } from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';
import type { ListRequest } from './api-context.ts';
import { ID_LISTS, type ListWalks, walkIdList } from './list-walks.ts';
import { pageWindow, resolvePage } from './paging.ts';
import type { CatalogueReader } from './ports.ts';
import type { AccountRecord, Page, SoundRecord } from './records.ts';
import type { SoundRecords } from './sound-records.ts';

/** Users and packs, and the sound lists hanging off them. */
export class PeopleService {
  constructor(
    private readonly catalogue: CatalogueReader,
    private readonly records: SoundRecords,
    private readonly walks: ListWalks,
  ) {}

  user(username: string): Promise<UserRecord> {
    return this.findUser(username);
  }

  /** The signed-in end user (`/apiv2/me/`); the user's id identifies them across renames. */
  async me(userId: number): Promise<AccountRecord> {
    const account = await this.catalogue.accountById(userId);
    if (!account) throw new NotFoundError('No User matches the given query.');
    return account;
  }

  async userSounds(username: string, req: ListRequest): Promise<Page<SoundRecord>> {
    const user = await this.findUser(username);
    return this.soundPage(req, ID_LISTS.userSounds(user.id), (window) =>
      this.catalogue.userSounds(user.id, window),
    );
  }

  async userPacks(username: string, req: ListRequest): Promise<Page<PackView>> {
    const user = await this.findUser(username);
    const count = (await this.catalogue.userPacks(user.id, { limit: 0, offset: 0 })).count;
    const { page } = resolvePage(req.page, count);
    const slice = await this.catalogue.userPacks(user.id, pageWindow(page, req.page.pageSize));
    return { ...slice, page, pageSize: req.page.pageSize };
  }

  async pack(id: number): Promise<PackView> {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError('No Pack matches the given query.');
    return pack;
  }

  async packSounds(id: number, req: ListRequest): Promise<Page<SoundRecord>> {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError('Not found');
    return this.soundPage(req, ID_LISTS.packSounds(id), (window) => this.catalogue.packSounds(id, window));
  }

  private async findUser(username: string): Promise<UserRecord> {
    const user = await this.catalogue.userByName(username);
    if (!user) throw new NotFoundError('No User matches the given query.');
    return user;
  }

  private async soundPage(
    req: ListRequest,
    key: string,
    read: (window: PageRequest) => Promise<CataloguePage<number>>,
  ): Promise<Page<SoundRecord>> {
    if (req.cursor !== undefined) {
      const page = { pageSize: req.page.pageSize, reads: req.reads };
      return walkIdList(this.walks, this.records, req.cursor, page, key, read);
    }
    const count = req.page.page === 'last' ? (await read({ limit: 0, offset: 0 })).count : undefined;
    const wanted =
      req.page.page === 'last' ? Math.max(1, Math.ceil((count ?? 0) / req.page.pageSize)) : req.page.page;
    const slice = await read(pageWindow(wanted, req.page.pageSize));
    const { page } = resolvePage({ ...req.page, page: wanted }, slice.count);
    const hits = { count: slice.count, items: slice.items.map((id) => ({ id })) };
    return this.records.page(hits, page, req.page.pageSize, req.reads);
  }
}
