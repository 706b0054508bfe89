import type { Readable } from 'node:stream';
import type {
  CommentView,
  EventResume,
  PackView,
  Page,
  PageRequest,
  SoundChangePosition,
  SoundChangeWithRecord,
  SoundRecord,
  SoundRecordColumn,
  UserEvent,
  UserEventKind,
  UserEventPosition,
  UserRecord,
  Webhook,
  WebhookDelivery,
  WebhookScope,
} from '@earshot/catalogue';
import type { AnalyzeClipOptions, ClipAnalysis, ServedFileKind } from '@earshot/core';
import type {
  Hit,
  PendingUploadsRecord,
  RawDescription,
  ReceivedFile,
  Suggestions,
  UploadOutcome,
  WebhookOwner,
} from '@earshot/services';

/**
 * What the API's use cases read from the rest of the system, as narrow interfaces; `adapters/`
 * binds them to the catalogue, the search and the similarity engine. What they read are the
 * catalogue's rows; the records the use cases answer with are these rows plus what the answer
 * adds (records.ts).
 */

/** Catalogue reads. Every list is in a stable order; counts are of the whole list. */
export interface CatalogueReader {
  /**
   * Approved, processed sounds by id, in the order asked; missing ids are left out. With `columns`,
   * a row may hold only those columns (and `id`): what the answer shows of it.
   */
  soundsByIds(ids: readonly number[], columns?: ReadonlySet<SoundRecordColumn>): Promise<SoundRecord[]>;
  userByName(username: string): Promise<UserRecord | undefined>;
  /** The account an OAuth2 token acts for, with its e-mail address. */
  accountById(userId: number): Promise<(UserRecord & { email: string }) | undefined>;
  userSounds(userId: number, page: PageRequest): Promise<Page<number>>;
  userPacks(userId: number, page: PageRequest): Promise<Page<PackView>>;
  packById(id: number): Promise<PackView | undefined>;
  packSounds(packId: number, page: PageRequest): Promise<Page<number>>;
  soundComments(soundId: number, page: PageRequest): Promise<Page<CommentView>>;
}

/**
 * The changes feed: what changed after a position, in commit order, and the changed sounds read
 * afresh (never from a cache: a sound the feed lists as edited must show the edit).
 */
export interface SoundChangesReader {
  /** The changes with each sound's row as it is now (only `columns` of it), none when not public. */
  after(
    position: SoundChangePosition,
    limit: number,
    columns: Iterable<SoundRecordColumn>,
  ): Promise<SoundChangeWithRecord[]>;
  /** Public sounds by id, in the order asked; missing or hidden ids are left out. */
  soundsByIds(ids: readonly number[]): Promise<SoundRecord[]>;
}

/**
 * The frozen lists of cursor walks (`list-walks.ts`), kept where every API process reads them.
 * Hits go in and come out with everything they carried (score, pack group, distance).
 */
export interface ListWalkStore {
  /** Stores a list; returns its walk's id. */
  start(listKey: string, hits: readonly Hit[]): Promise<string>;
  read(
    walkId: string,
    listKey: string,
    window: PageRequest,
  ): Promise<{ total: number; hits: Hit[] } | 'unknown' | 'other-list'>;
}

/** The events about users' sounds, in commit order (the outbox webhooks and the event stream read). */
export interface UserEventsReader {
  after(options: { after: UserEventPosition; limit: number; userId?: number }): Promise<UserEvent[]>;
  latest(): Promise<UserEventPosition>;
  /** Whether a stream can resume after a position, and what the retention removed after it (the catalogue's eventResume). */
  resume(options: {
    userId: number;
    after: UserEventPosition;
    kinds: readonly UserEventKind[];
  }): Promise<EventResume>;
}

/**
 * A user's webhooks (the use cases of @earshot/services, bound to the catalogue and the SSRF
 * switch): the API's scope is one credential's, the account pages' the whole account's.
 */
export interface WebhookStore {
  register(
    owner: WebhookOwner,
    request: { url: string; events?: string | readonly string[] },
  ): Promise<Webhook>;
  list(scope: WebhookScope): Promise<Webhook[]>;
  get(scope: WebhookScope, id: number): Promise<Webhook>;
  remove(scope: WebhookScope, id: number): Promise<void>;
  enable(scope: WebhookScope, id: number): Promise<Webhook>;
  deliveries(scope: WebhookScope, id: number, limit: number): Promise<WebhookDelivery[]>;
}

/** Autocomplete: tags and names of public sounds completing a prefix (the services' suggestCompletions). */
export interface SuggestionReader {
  suggest(request: { q?: string; limit?: number }): Promise<Suggestions>;
}

/** The latest bulk export of the public catalogue (`earshot export`), or undefined when none was made. */
export interface CatalogueExports {
  latest(): Promise<
    { path: string; file: string; created: string; sounds: number; cursor: string } | undefined
  >;
}

/** Descriptor values of one sound. */
export interface DescriptorReader {
  /** Variant B consolidated descriptors (flat, by name), or undefined when not analyzed. */
  consolidated(soundId: number): Promise<Record<string, unknown> | undefined>;
  /** Consolidated descriptors of many sounds at once, for lists asking descriptor fields. */
  consolidatedMany(soundIds: readonly number[]): Promise<Map<number, Record<string, unknown>>>;
  /** Variant A analysis tree (`lowlevel.spectral_centroid.mean`…), or undefined. */
  analysisTree(soundId: number): Promise<Record<string, unknown> | undefined>;
  /** Similarity vectors by space name (null when the sound has none in that space). */
  vectors(soundId: number): Promise<Record<string, number[] | null>>;
  /**
   * The current range over the visible sounds of each named numeric leaf of the variant-A tree
   * (`lowlevel.spectral_centroid.mean`, `lowlevel.mfcc.mean[3]`); leaves without one are absent.
   */
  ranges(names: readonly string[]): Promise<Map<string, { min: number; max: number }>>;
}

/**
 * Search is the services' SearchEngine, the one `earshot similar` ranks with too: these are its
 * requests and answers. The API wraps it in its caches (`adapters/cached-search.ts`).
 */
export type {
  ContentSearchRequest,
  Hit,
  Hits,
  SearchEngine,
  SearchExample,
  SimilarityRequest,
  TextSearchRequest,
} from '@earshot/services';

/** Analyzes an audio clip off the event loop (a worker thread), for search by example. */
export interface ClipAnalyzer {
  analyze(file: string, options: AnalyzeClipOptions): Promise<ClipAnalysis>;
}

/** The kinds of stored file the API serves (core's STORED_FILES). */
export type FileKind = ServedFileKind;

/** Where a sound's stored files are. Undefined when the file does not exist. */
export interface SoundFiles {
  locate(soundId: number, kind: FileKind): Promise<string | undefined>;
  /** Who uploaded the sound, whatever its state (its files before it is public are theirs to see). */
  uploaderOf(soundId: number): Promise<number | undefined>;
}

/**
 * The write side of sounds for the OAuth2 user (upload, describe, pending uploads, edit): the
 * services' use cases, bound to the catalogue, the data folder and the pipeline's queue.
 */
export interface SoundWrites {
  /** UPLOAD_MAX_BYTES. */
  readonly maxUploadBytes: number;
  /** Throws when the file's name already says it is no audio we take. */
  checkFilename(filename: string): void;
  receive(stream: Readable, filename: string): Promise<ReceivedFile>;
  discard(file: ReceivedFile): Promise<void>;
  upload(userId: number, file: ReceivedFile, fields: RawDescription): Promise<UploadOutcome>;
  describe(
    userId: number,
    fields: RawDescription & { upload_filename?: string },
  ): Promise<{ detail: string; id: number }>;
  pending(userId: number): Promise<PendingUploadsRecord>;
  edit(userId: number, soundId: number, fields: RawDescription): Promise<{ detail: string }>;
}
