import { NotFoundError } from '@earshot/common';
import type { Context } from 'koa';
import type { ListRequest } from '../../application/api-context.ts';
import type { ApiServices } from '../../application/index.ts';
import { requestOrigin } from '../../framework/http/origin.ts';
import { readPageQuery } from '../../framework/http/pagination.ts';
import { parseId } from '../../framework/http/params.ts';
import { selectFields } from '../../v2/presenters/sound-fields.ts';
import type { WebDeps } from '../deps.ts';
import { render, renderError } from '../render.ts';

/** Sounds per page on the user and pack pages. */
const PAGE_SIZE = 30;

/** The upstream addresses the API's `url` fields name (serializers/user.ts, pack.ts, sound.ts). */
export const userPath = (username: string) => `/people/${encodeURIComponent(username)}/`;
export const packPath = (username: string, id: number) => `${userPath(username)}packs/${id}/`;
export const soundPath = (username: string, id: number) => `${userPath(username)}sounds/${id}/`;

interface SoundRow {
  id: number;
  name: string;
  path: string;
  tags: string[];
  license: string;
}

/** The list request the API's own user and pack sound lists take, for page `page` of this site. */
function listOf(ctx: Context, deps: WebDeps, services: ApiServices): ListRequest {
  return {
    links: { origin: requestOrigin(ctx, deps), path: ctx.path, query: {} },
    page: { ...readPageQuery({ page: pageParam(ctx) }, 'list'), pageSize: PAGE_SIZE },
    selection: selectFields('id,name,tags,username,license', {
      variant: services.variant,
      kind: 'list',
      allowScore: false,
    }),
    variantA: { normalized: false },
  };
}

function pageParam(ctx: Context): string | undefined {
  const raw = ctx.query.page;
  return typeof raw === 'string' && /^[1-9]\d{0,5}$/.test(raw) ? raw : undefined;
}

function rows(results: ReadonlyArray<Record<string, unknown> | null>): SoundRow[] {
  return results.flatMap((s) =>
    s
      ? [
          {
            id: s.id as number,
            name: s.name as string,
            path: soundPath(s.username as string, s.id as number),
            tags: (s.tags as string[]) ?? [],
            license: String(s.license ?? ''),
          },
        ]
      : [],
  );
}

/** Previous and next page links of a list of `count` sounds. */
function paging(ctx: Context, count: number) {
  const page = Number(pageParam(ctx) ?? 1);
  const last = Math.max(1, Math.ceil(count / PAGE_SIZE));
  return {
    page,
    last,
    previous: page > 1 ? `${ctx.path}?page=${page - 1}` : undefined,
    next: page < last ? `${ctx.path}?page=${page + 1}` : undefined,
  };
}

async function notFound(ctx: Context, what: string): Promise<void> {
  await renderError(ctx, 404, { title: 'Page not found', message: `There is no such ${what}.` });
}

/** GET /people/<username>/: the user, their packs and their public sounds, newest first. */
export function showUser(deps: WebDeps, services: ApiServices) {
  return async (ctx: Context) => {
    const username = String(ctx.params.username);
    const req = listOf(ctx, deps, services);
    try {
      const [user, sounds, packs] = await Promise.all([
        services.people.user(username, req.links.origin),
        services.people.userSounds(username, req),
        services.people.userPacks(username, { links: req.links, page: { ...req.page, page: 1 } }),
      ]);
      await render(ctx, 'user', {
        person: { username: user.username, about: user.about, joined: user.date_joined.slice(0, 10) },
        sounds: rows(sounds.results as Array<Record<string, unknown> | null>),
        count: sounds.count,
        packs: packs.results.map((p) => ({
          name: p.name,
          path: packPath(p.username, p.id),
          num: p.num_sounds,
        })),
        paging: paging(ctx, sounds.count),
      });
    } catch (err) {
      if (err instanceof NotFoundError) return notFound(ctx, 'user');
      throw err;
    }
  };
}

/** GET /people/<username>/packs/<id>/: a pack and its public sounds (the pack's user must match). */
export function showPack(deps: WebDeps, services: ApiServices) {
  return async (ctx: Context) => {
    const id = parseId(ctx.params.id);
    if (id === undefined) return notFound(ctx, 'pack');
    const req = listOf(ctx, deps, services);
    try {
      const pack = await services.people.pack(id, req.links.origin);
      if (pack.username !== String(ctx.params.username)) return notFound(ctx, 'pack');
      const sounds = await services.people.packSounds(id, req);
      await render(ctx, 'pack', {
        pack: { ...pack, userPath: userPath(pack.username), created: pack.created.slice(0, 10) },
        sounds: rows(sounds.results as Array<Record<string, unknown> | null>),
        count: sounds.count,
        paging: paging(ctx, sounds.count),
      });
    } catch (err) {
      if (err instanceof NotFoundError) return notFound(ctx, 'pack');
      throw err;
    }
  };
}
