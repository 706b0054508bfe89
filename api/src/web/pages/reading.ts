import type { FacetCount, Facets } from '@earshot/catalogue';
import { EarshotError, NotFoundError } from '@earshot/common';
import type { Context } from 'koa';
import { fileUrl } from '../../application/file-names.ts';
import type { ApiServices } from '../../application/index.ts';
import { CursorRefused, START_WALK } from '../../application/list-walks.ts';
import { parseId } from '../../framework/http/params.ts';
import { soundScriptUrl, suggestScriptUrl } from '../assets.ts';
import { renderPage } from '../render.ts';
import { webState } from '../state.ts';
import {
  DURATIONS,
  FILE_TYPES,
  KEYS,
  LICENSES,
  readSearchPage,
  type SearchPageParams,
  SORTS,
  searchFilter,
  searchHref,
} from './search-params.ts';
import { soundActions } from './sound-actions.ts';
import {
  licenseLink,
  type SoundCard,
  soundPageReads,
  toCard,
  toCards,
  webListRequest,
} from './sound-listing.ts';
import { describeSound } from './sound-words.ts';
import { type ListPosition, pagerOf, REFUSED_CURSOR } from './walk-paging.ts';

/**
 * The reading pages: home, search and a sound. Each is a client of the API's use cases (search
 * and sound services), never of the catalogue. Visitors get no session here (nothing to post),
 * so reading costs no database write.
 */
const HOME_SIZE = 8;
const SEARCH_PAGE_SIZE = 15;
const SIMILAR_SIZE = 6;

/** GET /: the newest and the most downloaded sounds, and a search box. */
export function showHome(api: ApiServices) {
  return async (ctx: Context) => {
    const req = webListRequest(1, HOME_SIZE);
    const [recent, popular] = await Promise.all([
      api.search.text({ sort: 'created_desc' }, req),
      api.search.text({ sort: 'downloads_desc' }, req),
    ]);
    renderPage(ctx, 200, 'home', {
      title: 'Find, hear and share sounds',
      recent: toCards(recent.items),
      popular: toCards(popular.items),
      count: recent.count,
      script: soundScriptUrl,
      suggestScript: api.suggestions ? suggestScriptUrl : undefined,
    });
  };
}

/**
 * GET /search/: the query box, facets as links and boxes, sorting and pages; a plain GET form. The
 * first view starts a walk through the results and the pager follows its cursors (walk-paging.ts):
 * paging while sounds come and go shows each sound once. The facets and the count are the search's
 * as it is now, read beside the page.
 */
export function showSearch(api: ApiServices) {
  return async (ctx: Context) => {
    const params = readSearchPage(ctx.query);
    const position: ListPosition = params.cursor
      ? { cursor: params.cursor }
      : params.page > 1
        ? { page: params.page }
        : { cursor: START_WALK };
    const data: Record<string, unknown> = {
      title: params.q ? `“${params.q}” · search` : 'Search sounds',
      params,
      options: { licenses: LICENSES, types: FILE_TYPES, durations: DURATIONS, keys: KEYS, sorts: SORTS },
      href: (change: Parameters<typeof searchHref>[1]) => searchHref(params, change),
      script: soundScriptUrl,
      suggestScript: api.suggestions ? suggestScriptUrl : undefined,
      results: [] as SoundCard[],
      count: 0,
    };
    const search = { query: params.q, filter: searchFilter(params), sort: params.sort || undefined };
    const faceted = { ...search, facets: [...PAGE_FACETS], facet_limit: PAGE_FACET_LIMIT };
    let status = 200;
    try {
      // A page by number counts its facets in its own search; a walk's page reads its stored list.
      const [found, counted] =
        'page' in position
          ? await api.search
              .text(faceted, webListRequest(position.page, SEARCH_PAGE_SIZE))
              .then((page) => [page, page] as const)
          : await Promise.all([
              api.search.text(search, {
                ...webListRequest(1, SEARCH_PAGE_SIZE),
                cursor: position.cursor,
                walkMax: SEARCH_WALK_MAX,
              }),
              api.search.text(faceted, webListRequest(1, 1)),
            ]);
      Object.assign(data, {
        results: toCards(found.items),
        count: counted.count,
        pager: pagerOf(found, SEARCH_PAGE_SIZE, (to) => searchHref(params, to)),
        // A walk holds the first SEARCH_WALK_MAX results: say so when there are more.
        walkMax: found.cursors && counted.count > found.count ? found.count : undefined,
        facets: pageFacets(counted.facets ?? {}, params),
      });
    } catch (err) {
      // A page past the end, a range the engine refuses, a walk no longer kept: the form again, with
      // the reason.
      if (!(err instanceof EarshotError) || err.status >= 500) throw err;
      status = err.status === 404 ? 404 : 400;
      data.error =
        err instanceof CursorRefused
          ? REFUSED_CURSOR
          : err.status === 404
            ? 'There is no such page of results; go back to the first page.'
            : err.message;
      if (err instanceof CursorRefused || err.status === 404) data.restart = searchHref(params);
    }
    renderPage(ctx, status, 'search', data);
  };
}

/** Most results a walk through a search holds: 200 pages, more than a person pages through. */
const SEARCH_WALK_MAX = 3_000;

/** The facets the search page shows (the API's, over every match), and how many values of each. */
const PAGE_FACETS = ['tags', 'license', 'type', 'username'] as const;
const PAGE_FACET_LIMIT = 15;

interface FacetLink {
  label: string;
  count: number;
  href: string;
}

/**
 * Each facet's values as links that add the value as a filter (values already chosen left out):
 * a tag, a license or a type joins the page's own choices, a username narrows to that uploader.
 */
function pageFacets(facets: Facets, p: SearchPageParams): Array<{ legend: string; links: FacetLink[] }> {
  const links = (
    values: FacetCount[] | undefined,
    chosen: (v: string) => boolean,
    change: (v: string) => Parameters<typeof searchHref>[1],
  ): FacetLink[] =>
    (values ?? [])
      .map(([v, count]) => ({ value: String(v), count }))
      .filter(({ value }) => !chosen(value))
      .map(({ value, count }) => ({ label: value, count, href: searchHref(p, change(value)) }));
  return [
    {
      legend: 'Tags in these results',
      links: links(
        facets.tags,
        (v) => p.tags.includes(v),
        (v) => ({ tags: [...p.tags, v] }),
      ),
    },
    {
      legend: 'Licenses',
      links: links(
        facets.license,
        (v) => p.licenses.includes(v),
        (v) => ({ licenses: [...p.licenses, v] }),
      ),
    },
    {
      legend: 'File types',
      links: links(
        facets.type,
        (v) => p.types.includes(v),
        (v) => ({ types: [...p.types, v] }),
      ),
    },
    {
      legend: 'Uploaders',
      links: links(
        facets.username,
        (v) => p.username === v,
        (v) => ({ username: v }),
      ),
    },
  ].filter((f) => f.links.length > 0);
}

/**
 * GET /people/<username>/sounds/<id>/: the address the API gives as a sound's `url`. Another
 * user's name in it is answered with a redirect to the right one (upstream does the same).
 */
export function showSound(api: ApiServices) {
  const reads = soundPageReads(api.variant);
  return async (ctx: Context) => {
    const id = parseId(ctx.params.id);
    if (id === undefined) throw new NotFoundError('No sound has this address.');
    const record = await api.sounds.instance(id, reads);
    const { sound } = record;
    const card = toCard(record);
    if (card.username !== ctx.params.username) {
      ctx.status = 301;
      ctx.redirect(card.url);
      return;
    }
    let similar: SoundCard[] = [];
    try {
      similar = toCards((await api.sounds.similar(id, {}, webListRequest(1, SIMILAR_SIZE))).items);
    } catch (err) {
      // Not analyzed for similarity (yet): the page simply has no similar sounds.
      if (!(err instanceof EarshotError) || err.status >= 500) throw err;
    }
    const duration = sound.duration ?? 0;
    renderPage(ctx, 200, 'sound', {
      title: card.name,
      sound: card,
      description: sound.description,
      created: sound.created.toISOString().slice(0, 10),
      pack: sound.pack_name ?? undefined,
      downloads: sound.num_downloads,
      rating: sound.num_ratings ? { avg: sound.avg_rating, count: sound.num_ratings } : undefined,
      details: describeSound({ ...record.descriptors, duration }),
      licenseUrl: licenseLink(card.license),
      player: { mp3: fileUrl('', id, 'preview-hq-mp3'), ogg: fileUrl('', id, 'preview-hq-ogg') },
      waveform: fileUrl('', id, 'waveform_l'),
      spectrogram: fileUrl('', id, 'spectral_l'),
      peaks: fileUrl('', id, 'peaks'),
      durationSeconds: duration,
      similar,
      // Rate, bookmark, comment, download (pages/sound-actions.ts); comments for everyone.
      actions: await soundActions(ctx, api, { id, username: card.username }),
      signedIn: webState(ctx).user !== undefined,
      script: soundScriptUrl,
    });
  };
}
