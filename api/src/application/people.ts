import type { Page, PageRequest } from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';
import { type PageEnvelope, pageEnvelope, pageWindow, resolvePage } from '../framework/http/pagination.ts';
import { serializePack } from '../v2/presenters/pack.ts';
import type { MeJson, PackJson, SoundJson, UserJson } from '../v2/presenters/schemas.ts';
import { type SoundPresenter, soundsPage } from '../v2/presenters/sound-presenter.ts';
import { serializeUser } from '../v2/presenters/user.ts';
import type { ListRequest } from './api-context.ts';
import type { CatalogueReader } from './ports.ts';

/** Users and packs, and the sound lists hanging off them. */
export class PeopleService {
  constructor(
    private readonly catalogue: CatalogueReader,
    private readonly presenter: SoundPresenter,
  ) {}

  async user(username: string, origin: string): Promise<UserJson> {
    return serializeUser(await this.findUser(username), origin);
  }

  /** The signed-in end user (`/apiv2/me/`); `unique_id` is the user's id, stable across renames. */
  async me(userId: number, origin: string): Promise<MeJson> {
    const account = await this.catalogue.accountById(userId);
    if (!account) throw new NotFoundError('No User matches the given query.');
    return { ...serializeUser(account, origin), email: account.email, unique_id: account.id };
  }

  async userSounds(username: string, req: ListRequest): Promise<PageEnvelope<SoundJson | null>> {
    const user = await this.findUser(username);
    return this.soundPage(req, (window) => this.catalogue.userSounds(user.id, window));
  }

  async userPacks(username: string, req: Omit<ListRequest, 'selection'>): Promise<PageEnvelope<PackJson>> {
    const user = await this.findUser(username);
    const count = (await this.catalogue.userPacks(user.id, { limit: 0, offset: 0 })).count;
    const { page } = resolvePage(req.page, count);
    const slice = await this.catalogue.userPacks(user.id, pageWindow(page, req.page.pageSize));
    const results = slice.items.map((p) => serializePack(p, req.links.origin));
    return pageEnvelope(req.links, page, req.page.pageSize, slice.count, results);
  }

  async pack(id: number, origin: string): Promise<PackJson> {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError('No Pack matches the given query.');
    return serializePack(pack, origin);
  }

  async packSounds(id: number, req: ListRequest): Promise<PageEnvelope<SoundJson | null>> {
    const pack = await this.catalogue.packById(id);
    if (!pack) throw new NotFoundError('Not found');
    return this.soundPage(req, (window) => this.catalogue.packSounds(id, window));
  }

  private async findUser(username: string) {
    const user = await this.catalogue.userByName(username);
    if (!user) throw new NotFoundError('No User matches the given query.');
    return user;
  }

  private async soundPage(
    req: ListRequest,
    read: (window: PageRequest) => Promise<Page<number>>,
  ): Promise<PageEnvelope<SoundJson | null>> {
    const count = req.page.page === 'last' ? (await read({ limit: 0, offset: 0 })).count : undefined;
    const wanted =
      req.page.page === 'last' ? Math.max(1, Math.ceil((count ?? 0) / req.page.pageSize)) : req.page.page;
    const slice = await read(pageWindow(wanted, req.page.pageSize));
    const { page } = resolvePage({ ...req.page, page: wanted }, slice.count);
    const results = await this.presenter.present(
      slice.items.map((id) => ({ id })),
      { origin: req.links.origin, variant: this.presenter.variant, selection: req.selection },
      req.variantA,
    );
    return soundsPage(req.links, page, req.page.pageSize, slice.count, results);
  }
}
