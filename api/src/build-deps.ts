import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Catalogue,
  CatalogueChangeFeed,
  CatalogueVersionPoll,
  type ChangeVersion,
  LiveSearchIndex,
  NO_CHANGE_FEED,
  pingCatalogue,
} from '@earshot/catalogue';
import type { Config, Logger } from '@earshot/common';
import { ClipAnalysisPool, DEFAULT_SIMILARITY_SPACE, Ffmpeg, listSimilaritySpaces } from '@earshot/core';
import {
  BookmarkCategories,
  Downloads,
  latestExport,
  logSimilarityFailure,
  OAuth2Service,
  ProcessingCounts,
  type ProcessingQueue,
  SimilarityState,
  SoundFeedback,
  searchIndexSnapshotStore,
  similaritySnapshotDir,
  ThreadedTextIndex,
} from '@earshot/services';
import { bearerTokenCheck } from './adapters/bearer-tokens.ts';
import { catalogueReader } from './adapters/catalogue-reader.ts';
import { credentialByKey } from './adapters/credentials.ts';
import { descriptorReader } from './adapters/descriptor-reader.ts';
import { legacyReader } from './adapters/legacy-reader.ts';
import { LIST_WALK_LIMITS, listWalkStore } from './adapters/list-walks.ts';
import { Metrics } from './adapters/metrics.ts';
import { cachedSoundRecords } from './adapters/record-cache.ts';
import { servedSearchEngine } from './adapters/search-engine.ts';
import { soundChangesReader } from './adapters/sound-changes.ts';
import { soundFiles } from './adapters/sound-files.ts';
import { soundWrites } from './adapters/sound-writes.ts';
import { suggestionReader } from './adapters/suggestions.ts';
import { userEventsReader, webhookStore } from './adapters/user-events.ts';
import { signedInSession } from './adapters/web-sessions.ts';
import { scopedChangeVersion } from './caches/answer-cache.ts';
import { cachedBearerCheck } from './caches/bearer-cache.ts';
import { cachedCredentialLookup } from './caches/credential-cache.ts';
import type { AppDeps } from './deps.ts';
import { bearerStrategy } from './framework/auth/bearer-strategy.ts';
import { sessionStrategy } from './framework/auth/session-strategy.ts';
import { tokenStrategy } from './framework/auth/token-strategy.ts';
import { openRateLimiter, type RateLimitSettings } from './framework/rate-limits/open.ts';
import { webDeps } from './web/build.ts';

export interface BuildAppDepsOptions {
  config: Config;
  logger: Logger;
  catalogue: Catalogue;
  version?: string;
  /**
   * Start from (and write) similarity snapshots in `<dataDir>/similarity` (default true). The
   * first load no longer holds up the start when `similarityInBackground` is set: similarity
   * answers are 503 until it is done (`similarity.isReady()`).
   */
  similaritySnapshots?: boolean;
  similarityInBackground?: boolean;
  /** How often a process that holds the snapshot lock writes fresh snapshots after changes (default 10 min; 0 = never). */
  similaritySnapshotEveryMs?: number;
  /** How often the similarity state reloads from the catalogue (default 60 s; 0 = never). */
  similarityRefreshMs?: number;
  /** How long sound records (and rendered sound instances) are reused (default 5 s; 0 = always read). */
  recordCacheMs?: number;
  /**
   * Follow the catalogue's changes and keep search answers until the next change (default true):
   * on the PostgreSQL server by listening for its notifications, on the embedded database by
   * reading its change counter once per request. False: every answer is read afresh.
   */
  changeFeed?: boolean;
  /**
   * Answer the text searches it can from an in-process posting index (default true), built in the
   * background at start (searches run in the database until it is ready) and kept current with the
   * catalogue's changes as the caches are (`changeFeed`). It starts from its snapshot in
   * `<dataDir>/search-index` when there is one (and `similaritySnapshots` is not false).
   */
  searchIndex?: boolean;
  /**
   * On a PostgreSQL server, keep and search that index in a worker thread (default true), so a
   * search over many matches holds up no other request; false keeps it on the event loop.
   */
  searchIndexThread?: boolean;
  /** Worker threads analyzing `audio_file` clips (default: CLIP_THREADS, else defaultClipThreads()). */
  clipThreads?: number;
  /** Nice steps the clip threads run below the event loop (default: CLIP_THREAD_NICENESS, else the pool's). */
  clipNiceness?: number;
  /** The clock OAuth2 expiry is decided by (tests move it); default the wall clock. */
  now?: () => Date;
  /** Clock, policy or key prefix of the rate limiter (tests); counters are in Redis when REDIS_URL is set. */
  rateLimits?: RateLimitSettings;
  /** Key prefix of the sign-in throttle's counters in Redis (tests sharing one Redis); default none. */
  signInKeyPrefix?: string;
  /** The pipeline's queue uploads are submitted to; without it upload, describe and edit are not served. */
  queue?: ProcessingQueue;
  /**
   * The ffmpeg/ffprobe uploads are probed with (and the clip threads run). Default: one of the
   * process's own, FFMPEG_PATH/FFPROBE_PATH from the config (else PATH, else npm's), its ffprobe
   * runs started by the spawn helper; closed by `dispose`. `earshot serve` passes the one its
   * in-process jobs run too.
   */
  ffmpeg?: Ffmpeg;
}

export interface WiredAppDeps extends AppDeps {
  similarity: SimilarityState;
  metrics: Metrics;
  /**
   * Resolves once the text index has started in every thread it runs in (at once without one):
   * from then on it reads the catalogue only to follow changes. Rejects after `timeoutMs`.
   */
  searchIndexStarted: (timeoutMs?: number) => Promise<void>;
  /** Stops the refresh timer and frees the similarity state (the catalogue is the caller's). */
  dispose: () => Promise<void>;
}

/** Wires the HTTP layer to the catalogue, the search and the similarity engine. */
export async function buildAppDeps(options: BuildAppDepsOptions): Promise<WiredAppDeps> {
  const { config, logger, catalogue } = options;
  const db = catalogue.db;
  const ffmpeg = options.ffmpeg ?? serverFfmpeg(config, logger);
  const similarity = new SimilarityState(db, logger, {
    snapshotDir: options.similaritySnapshots === false ? undefined : similaritySnapshotDir(config.dataDir),
  });
  const firstLoad = similarity.refresh();
  if (options.similarityInBackground) {
    firstLoad.catch((err) => logger.error({ err }, 'similarity load failed; retried at the next refresh'));
  } else {
    await firstLoad;
  }
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
      .catch((err) => logSimilarityFailure(logger, err))
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
  const snapshotTimer = startSnapshotWriter(similarity, logger, options);
  const changes: ChangeVersion = await followChanges(options);
  // The similarity snapshots' switch: tests and one-off processes leave the data folder alone.
  const snapshotDir = options.similaritySnapshots === false ? undefined : config.dataDir;
  const textIndex =
    options.searchIndex === false
      ? undefined
      : config.DATABASE_URL && options.searchIndexThread !== false
        ? // On a server the index runs in a thread of its own (the embedded database has one connection).
          new ThreadedTextIndex(scopedChangeVersion(changes), {
            databaseUrl: config.DATABASE_URL,
            ...(snapshotDir ? { snapshotDir } : {}),
            logger,
          }).start()
        : new LiveSearchIndex(db, scopedChangeVersion(changes), {
            logger,
            snapshots: snapshotDir === undefined ? undefined : searchIndexSnapshotStore(snapshotDir),
          }).start();
  const now = options.now ?? (() => new Date());
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
  const web = webDeps(config, db, soundFiles(db, config.dataDir), logger, options.signInKeyPrefix);
  const oauth2 = new OAuth2Service({ db, now });
  const limits = await openRateLimiter(config, logger, options.rateLimits);
  const spaceNames = () => listSimilaritySpaces().map((s) => s.name);
  // Search by audio_file: clips are analyzed in worker threads, never on the event loop.
  const clips = new ClipAnalysisPool(options.clipThreads ?? config.CLIP_THREADS ?? defaultClipThreads(), {
    niceness: options.clipNiceness ?? config.CLIP_THREAD_NICENESS,
    ffmpeg,
  });
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
      search: servedSearchEngine(db, similarity, changes, config.SEARCH_BUDGET_MS, textIndex),
      files: soundFiles(db, config.dataDir),
      clips,
      legacy: legacyReader(db, config.dataDir),
      soundChanges: soundChangesReader(db, DEFAULT_SIMILARITY_SPACE),
      walks: listWalkStore(db, { ...LIST_WALK_LIMITS, idleSeconds: config.LIST_WALK_IDLE_MINUTES * 60 }),
      exports: { latest: () => latestExport(config.dataDir) },
      events: { reader: userEventsReader(db), webhooks: webhookStore(db, config.WEBHOOK_ALLOW_PRIVATE) },
      suggestions: suggestionReader(db),
      responseCacheMs: options.recordCacheMs,
      changes,
      stateVersion,
      social: {
        feedback: new SoundFeedback(db),
        bookmarks: new BookmarkCategories(db),
        downloads: new Downloads(db, config.dataDir),
      },
      writes: options.queue
        ? soundWrites(
            db,
            config.dataDir,
            options.queue,
            {
              maxBytes: config.UPLOAD_MAX_BYTES,
              maxSeconds: config.UPLOAD_MAX_SECONDS,
              idleTimeoutMs: config.IDLE_TIMEOUT_MS,
            },
            ffmpeg,
          )
        : undefined,
    },
    authStrategies: [
      tokenStrategy(cachedCredentialLookup(credentialByKey(db), changes)),
      bearerStrategy(cachedBearerCheck(bearerTokenCheck(db, now), now, changes)),
      // Last: a request carrying a key is judged by its key. The hot path never passes a cookie.
      sessionStrategy(signedInSession(db)),
    ],
    oauth2,
    web: { ...web.deps, oauth2 },
    rateLimiter: limits.limiter,
    // Operations (/metrics, /ready): the serve command adds the queue's sources.
    metrics: operationsMetrics(db, clips),
    readiness: {
      redis: limits.redisReady,
      similarity: () => similarity.isReady(),
      ...(textIndex ? { searchIndex: () => textIndex.isReady() } : {}),
    },
    similarity,
    searchIndexStarted: (timeoutMs = 60_000) =>
      until(
        () =>
          !textIndex || (textIndex instanceof ThreadedTextIndex ? textIndex.allReady() : textIndex.isReady()),
        timeoutMs,
        'the search index did not start',
      ),
    dispose: async () => {
      await web.close();
      await limits.close();
      if (timer) clearInterval(timer);
      if (snapshotTimer) clearInterval(snapshotTimer);
      if (soon) clearTimeout(soon);
      await textIndex?.close();
      await changes.close();
      await similarity.close();
      await clips.close();
      if (!options.ffmpeg) ffmpeg.close();
    },
  };
}

/**
 * The Ffmpeg of a serving process: the configured binaries, their choice logged once, and ffprobe
 * (every upload's probe) started by a small helper process, because forking this large one blocks
 * its event loop for each (packages/core/src/ffmpeg/spawn-helper.ts).
 */
export function serverFfmpeg(config: Pick<Config, 'FFMPEG_PATH' | 'FFPROBE_PATH'>, logger: Logger): Ffmpeg {
  return new Ffmpeg({
    ffmpegPath: config.FFMPEG_PATH,
    ffprobePath: config.FFPROBE_PATH,
    logger,
    spawnHelper: true,
  });
}

/** The metrics every API process has: requests, sounds by processing state, audio_file clip stages. */
function operationsMetrics(db: BuildAppDepsOptions['catalogue']['db'], clips: ClipAnalysisPool): Metrics {
  const metrics = new Metrics();
  const counts = new ProcessingCounts(db);
  metrics.use({ processing: () => counts.byState(), clips: () => clips.stats() });
  return metrics;
}

/**
 * Every `similaritySnapshotEveryMs` (when the indexes changed since the last one) this process
 * writes snapshots, unless another process holds the catalogue-wide snapshot lock: of N API
 * processes one writes, and a restart then starts from a recent picture.
 */
function startSnapshotWriter(
  similarity: SimilarityState,
  logger: Logger,
  options: BuildAppDepsOptions,
): NodeJS.Timeout | undefined {
  const every = options.similaritySnapshotEveryMs ?? 600_000;
  if (options.similaritySnapshots === false || every <= 0) return undefined;
  let written = -1;
  let writing = false;
  const timer = setInterval(() => {
    if (writing || !similarity.isReady() || similarity.generation === written) return;
    const generation = similarity.generation;
    writing = true;
    similarity
      .writeSnapshots()
      .then((wrote) => {
        if (wrote) written = generation;
      })
      .catch((err) => logger.error({ err }, 'similarity snapshot failed'))
      .finally(() => {
        writing = false;
      });
  }, every);
  timer.unref();
  return timer;
}

/**
 * One per core but the event loop's, and at least two: ten clients at once need about 25 clips/s,
 * more than one thread analyzes (≈ 40 ms of CPU each), and the threads run niced below the event
 * loop (CLIP_THREAD_NICENESS), so on two cores the second costs the other requests nothing
 * (benchmarks/results/example.md, 2026-11-25 06:33).
 */
export function defaultClipThreads(cores = os.availableParallelism()): number {
  return Math.max(2, cores - 1);
}

/**
 * How this process learns that the catalogue changed. The server's notifications cost nothing per
 * request; the embedded database cannot notify other processes (they share one backend through its
 * host), so there the change counter is read per request.
 */
async function followChanges(options: BuildAppDepsOptions): Promise<ChangeVersion> {
  const { config, catalogue, logger } = options;
  if (options.changeFeed === false) return NO_CHANGE_FEED;
  if (catalogue.kind !== 'postgres') return new CatalogueVersionPoll(catalogue.db);
  return config.DATABASE_URL ? CatalogueChangeFeed.start(config.DATABASE_URL, logger) : NO_CHANGE_FEED;
}

/** Resolves once `done()` holds, checked every 20 ms; rejects with `failure` after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs: number, failure: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`${failure} within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}
