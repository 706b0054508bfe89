import type { Page, PageRequest, SoundRecord } from '@earshot/catalogue';
import type {
  CatalogueReader,
  ContentSearchRequest,
  DescriptorReader,
  Hit,
  SearchEngine,
  SimilarityRequest,
  TextSearchRequest,
} from '../../src/application/ports.ts';

/**
 * In-memory sides of the ports in `ports.ts`, for the fast tier of service tests: a service is
 * built on these instead of the server, the catalogue and the similarity index. Tests of what
 * those parts do themselves keep using the real ones (`server.ts`).
 */

const page = <T>(items: readonly T[], { limit, offset }: PageRequest): Page<T> => ({
  items: items.slice(offset, offset + limit),
  count: items.length,
});

/** A catalogue holding `records` (empty by default: every hit is then one that could not be read). */
export function memoryCatalogue(records: readonly SoundRecord[] = []): CatalogueReader {
  const byId = new Map(records.map((r) => [r.id, r]));
  return {
    soundsByIds: async (ids) => ids.flatMap((id) => byId.get(id) ?? []),
    userByName: async () => undefined,
    accountById: async () => undefined,
    userSounds: async (_userId, window) => page([], window),
    userPacks: async (_userId, window) => page([], window),
    packById: async () => undefined,
    packSounds: async (_packId, window) => page([], window),
    soundComments: async (_soundId, window) => page([], window),
  };
}

/** No sound has descriptors, vectors or ranges. */
export function memoryDescriptors(): DescriptorReader {
  return {
    consolidated: async () => undefined,
    consolidatedMany: async () => new Map(),
    analysisTree: async () => undefined,
    vectors: async () => ({}),
    ranges: async () => new Map(),
  };
}

export interface RecordingSearchEngine extends SearchEngine {
  /** Every request the engine was asked, in order. */
  requests: Array<
    | { kind: 'text'; req: TextSearchRequest }
    | { kind: 'similar'; req: SimilarityRequest }
    | { kind: 'content'; req: ContentSearchRequest }
  >;
}

/**
 * A search engine whose every search matches `ids` in that order (a similarity search only when its
 * target sound is one of them) and that records what it was asked.
 */
export function recordingSearchEngine(
  ids: readonly number[],
  options: {
    spaces?: string[];
    descriptorNames?: ReturnType<SearchEngine['descriptorNames']>;
  } = {},
): RecordingSearchEngine {
  const hits: Hit[] = ids.map((id) => ({ id }));
  const spaces = options.spaces ?? ['freesound_classic'];
  const requests: RecordingSearchEngine['requests'] = [];
  return {
    requests,
    text: async (req) => {
      requests.push({ kind: 'text', req });
      return page(hits, req);
    },
    similar: async (req) => {
      requests.push({ kind: 'similar', req });
      if ('soundId' in req.target && !ids.includes(req.target.soundId)) return undefined;
      return page(hits, req);
    },
    content: async (req) => {
      requests.push({ kind: 'content', req });
      return page(hits, req);
    },
    spaces: () => ({ names: spaces, defaultSpace: spaces[0] }),
    descriptorNames: () =>
      options.descriptorNames ?? { oneDimensional: [], multiDimensional: [], variableLength: [] },
  };
}
