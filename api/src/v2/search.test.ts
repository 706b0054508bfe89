import { describe, expect, it } from 'vitest';
import { memoryCatalogue, memoryDescriptors, recordingSearchEngine } from '../../test/support/ports.ts';
import { ListWalks } from '../application/list-walks.ts';
import type { PagingStyle } from '../application/paging.ts';
import {
  type CombinedSearchParams,
  type ContentSearchParams,
  SearchService,
  type TextSearchParams,
} from '../application/search.ts';
import { SoundRecords } from '../application/sound-records.ts';
import { selectFields, soundReads } from './presenters/sound-fields.ts';
import {
  presentCombinedSearch,
  presentContentSearch,
  presentTextSearch,
} from './presenters/sound-presenter.ts';
import type { SoundListRequest } from './routes/list-request.ts';

// The fast tier: the search use cases on in-memory ports (no server, no catalogue, no index), their
// records presented as the version 2 routes present them. What the engine and the catalogue answer
// is tested against the real ones in the black-box suites.

const ids = Array.from({ length: 30 }, (_, i) => i + 1);

function service(engine = recordingSearchEngine(ids)) {
  const search = new SearchService(
    engine,
    new SoundRecords(memoryCatalogue(), memoryDescriptors()),
    new ListWalks(undefined),
  );
  return {
    engine,
    search: {
      text: async (params: TextSearchParams, req: SoundListRequest) =>
        presentTextSearch(req.links, await search.text(params, req), req.sounds),
      content: async (params: ContentSearchParams, req: SoundListRequest) =>
        presentContentSearch(req.links, await search.content(params, req), req.sounds),
      combined: async (params: CombinedSearchParams, req: SoundListRequest) =>
        presentCombinedSearch(req.links, await search.combined(params, req), req.sounds),
    },
  };
}

function request(path: string, query: Record<string, string>, page = 1, pageSize = 10): SoundListRequest {
  const style: PagingStyle = 'search';
  const selection = selectFields(undefined, { variant: 'B', kind: 'list', allowScore: true });
  return {
    links: { origin: 'http://api.test', path, query },
    page: { page, pageSize, style },
    reads: soundReads(selection),
    sounds: { origin: 'http://api.test', variant: 'B', selection },
  };
}

describe('the search service on in-memory ports', () => {
  it('asks the engine for the window of the page and treats the contract’s empty queries as no query', async () => {
    const { engine, search } = service();
    const page = await search.text(
      { query: '""', sort: '' },
      request('/apiv2/search/text/', { query: '""' }, 3),
    );
    expect(engine.requests).toEqual([
      {
        kind: 'text',
        req: {
          query: '',
          filter: undefined,
          sort: undefined,
          weights: undefined,
          groupByPack: false,
          limit: 10,
          offset: 20,
        },
      },
    ]);
    // The memory catalogue holds no records: every hit is one that could not be read, left out.
    expect(page.results).toEqual([]);
    await expect(search.text({ filter: ' ' }, request('/apiv2/search/text/', {}))).rejects.toMatchObject({
      status: 400,
      message: 'Invalid filter.',
    });
  });

  it('reads similar_to as a vector or a sound id; an unknown sound is a 404, a bad one or space a 400', async () => {
    const { engine, search } = service();
    const req = request('/apiv2/search/text/', {});
    await search.text({ similar_to: '[0.5, 1]' }, req);
    await search.text({ similar_to: '7' }, req);
    expect(engine.requests.map((r) => r.kind === 'similar' && [r.req.space, r.req.target])).toEqual([
      ['freesound_classic', { vector: [0.5, 1] }],
      ['freesound_classic', { soundId: 7 }],
    ]);
    await expect(search.text({ similar_to: '999' }, req)).rejects.toMatchObject({ status: 404 });
    await expect(search.text({ similar_to: 'abc' }, req)).rejects.toMatchObject({ status: 400 });
    await expect(search.text({ similar_to: '[1, "x"]' }, req)).rejects.toMatchObject({ status: 400 });
    await expect(search.text({ similar_to: '7', similarity_space: 'nope' }, req)).rejects.toThrow(
      /available spaces: freesound_classic/,
    );
  });

  it('refuses a descriptors_filter naming a descriptor the engine does not list, naming it', async () => {
    const engine = recordingSearchEngine(ids, {
      descriptorNames: {
        oneDimensional: ['lowlevel.spectral_centroid.mean'],
        multiDimensional: [],
        variableLength: ['rhythm.onset_times'],
      },
    });
    const { search } = service(engine);
    const req = request('/apiv2/search/content/', {});
    for (const name of ['lowlevel.foo.mean', 'rhythm.onset_times']) {
      const refused = search.content({ descriptors_filter: `${name}:[1 TO 2]` }, req);
      await expect(refused).rejects.toMatchObject({ status: 400 });
      await expect(refused).rejects.toThrow(name);
    }
    expect(engine.requests).toEqual([]);
    await search.content({ descriptors_filter: 'lowlevel.spectral_centroid.mean:[1 TO 2]' }, req);
    expect(engine.requests).toHaveLength(1);
    await expect(search.content({}, req)).rejects.toMatchObject({ status: 400 });
  });

  it('applies the combined-search rules and links to the following results instead of counting', async () => {
    const { search } = service();
    const query = { query: 'kick', descriptors_filter: 'lowlevel.pitch.mean:[1 TO 2]' };
    const req = request('/apiv2/search/combined/', query);
    await expect(search.combined({ ...query, target: 'lowlevel.pitch.mean:440' }, req)).rejects.toMatchObject(
      {
        status: 400,
      },
    );
    await expect(search.combined({ query: 'kick' }, req)).rejects.toMatchObject({ status: 400 });
    const answer = await search.combined(query, req);
    expect(answer.more).toBe(
      'http://api.test/apiv2/search/combined/?query=kick&descriptors_filter=lowlevel.pitch.mean:[1%20TO%202]&page=2',
    );
    const last = await search.combined(query, request('/apiv2/search/combined/', query, 3));
    expect(last.more).toBeNull();
  });
});
