import {
  type Catalogue,
  CatalogueChangeFeed,
  type ChangeVersion,
  NO_CHANGE_FEED,
  pingCatalogue,
} from '@earshot/catalogue';
import type { Config, Logger } from '@earshot/common';
import { DEFAULT_SIMILARITY_SPACE, listSimilaritySpaces } from '@earshot/core';
import { catalogueReader } from './adapters/catalogue-reader.ts';
import { credentialByKey } from './adapters/credentials.ts';
import { descriptorReader } from './adapters/descriptor-reader.ts';
import { searchEngine } from './adapters/search-engine.ts';
import { SimilarityState } from './adapters/similarity-state.ts';
import { soundFiles } from './adapters/sound-files.ts';
import { tokenStrategy } from './auth/token-strategy.ts';
import { cachedSearchEngine } from './caches/cached-search.ts';
import { cachedCredentialLookup } from './caches/credential-cache.ts';
import { cachedSoundRecords } from './caches/record-cache.ts';
import type { AppDeps } from './deps.ts';

export interface BuildAppDepsOptions {
  config: Config;
  logger: Logger;
  catalogue: Catalogue;
  version?: string;
  /** How often the similarity state reloads from the catalogue (default 60 s; 0 = never). */
  similarityRefreshMs?: number;
  /** How long sound records (and rendered sound instances) are reused (default 5 s; 0 = always read). */
  recordCacheMs?: number;
  /**
   * Listen for the catalogue's change notifications and keep search answers until the next
   * change (default true; only with the PostgreSQL server, the embedded database has no feed).
   */
  changeFeed?: boolean;
}

export interface WiredAppDeps extends AppDeps {
  similarity: SimilarityState;
  /** Stops the refresh timer and frees the similarity state (the catalogue is the caller's). */
  dispose: () => Promise<void>;
}

/** Wires the HTTP layer to the catalogue, the search and the similarity engine. */
export async function buildAppDeps(options: BuildAppDepsOptions): Promise<WiredAppDeps> {
  const { config, logger, catalogue } = options;
  const db = catalogue.db;
  const similarity = new SimilarityState(db, logger);
  await similarity.refresh();
  const refreshMs = options.similarityRefreshMs ?? 60_000;
  let refreshing = false;
  let again = false;
  const refreshSimilarity = () => {
    if (refreshing) {
      again = true; // a change came during this refresh: apply it right after
      return;
    }
    refreshing = true;
    similarity
      .refresh()
      .catch((err) => logger.error({ err }, 'similarity refresh failed'))
      .finally(() => {
        refreshing = false;
        if (again) {
          again = false;
          refreshSimilarity();
        }
      });
  };
  const timer = refreshMs > 0 ? setInterval(refreshSimilarity, refreshMs) : undefined;
  timer?.unref();
  const changes: ChangeVersion =
    options.changeFeed !== false && catalogue.kind === 'postgres' && config.DATABASE_URL
      ? await CatalogueChangeFeed.start(config.DATABASE_URL, logger)
      : NO_CHANGE_FEED;
  // With a feed, a change also brings the similarity state up to date soon (at most once a second)
  // instead of at the next periodic refresh.
  let soon: NodeJS.Timeout | undefined;
  if (refreshMs > 0) {
    changes.onChange(() => {
      soon ??= setTimeout(() => {
        soon = undefined;
        refreshSimilarity();
      }, 1_000);
      soon.unref();
    });
  }
  const spaceNames = () => listSimilaritySpaces().map((s) => s.name);
  const stateVersion = () => similarity.version;
  return {
    config,
    logger,
    version: options.version ?? '0.1.0',
    checkDatabase: () => pingCatalogue(db),
    api: {
      catalogue:
        options.recordCacheMs === 0
          ? catalogueReader(db, DEFAULT_SIMILARITY_SPACE)
          : cachedSoundRecords(
              catalogueReader(db, DEFAULT_SIMILARITY_SPACE),
              options.recordCacheMs,
              undefined,
              changes,
            ),
      descriptors: descriptorReader(db, spaceNames),
      search: cachedSearchEngine(searchEngine(db, similarity, changes), changes, stateVersion),
      files: soundFiles(db, config.dataDir),
      responseCacheMs: options.recordCacheMs,
      changes,
      stateVersion,
    },
    authStrategies: [tokenStrategy(cachedCredentialLookup(credentialByKey(db)))],
    similarity,
    dispose: async () => {
      if (timer) clearInterval(timer);
      if (soon) clearTimeout(soon);
      await changes.close();
      await similarity.close();
    },
  };
}
