import type { Readable } from 'node:stream';
import type { CommentView, PackView, Page, PageRequest, SoundRecord, UserRecord } from '@earshot/catalogue';
import type { AnalysisTree, AnalyzeClipOptions, ClipAnalysis } from '@earshot/core';
import type { PendingUploadsRecord, RawDescription, ReceivedFile, UploadOutcome } from '@earshot/services';

/**
 * What the API's use cases read from the rest of the system, as narrow interfaces; `adapters/`
 * binds them to the catalogue, the search and the similarity engine. What they read are the
 * catalogue's rows; the records the use cases answer with are these rows plus what the answer
 * adds (records.ts).
 */

/** Catalogue reads. Every list is in a stable order; counts are of the whole list. */
export interface CatalogueReader {
  /** Approved, processed sounds by id, in the order asked; missing ids are left out. */
  soundsByIds(ids: readonly number[]): Promise<SoundRecord[]>;
  userByName(username: string): Promise<UserRecord | undefined>;
  /** The account an OAuth2 token acts for, with its e-mail address. */
  accountById(userId: number): Promise<(UserRecord & { email: string }) | undefined>;
  userSounds(userId: number, page: PageRequest): Promise<Page<number>>;
  userPacks(userId: number, page: PageRequest): Promise<Page<PackView>>;
  packById(id: number): Promise<PackView | undefined>;
  packSounds(packId: number, page: PageRequest): Promise<Page<number>>;
  soundComments(soundId: number, page: PageRequest): Promise<Page<CommentView>>;
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

export interface Hit {
  id: number;
  score?: number;
  /** Grouped search: matches in the same pack, this one included, when more than one. */
  nFromSamePack?: number;
  packGrouping?: string;
}

/** One page of hits with the count of all of them. */
export type Hits = Page<Hit>;

/** Every search request asks for one page as `{ limit, offset }` (the catalogue's `PageRequest`). */
export interface TextSearchRequest extends PageRequest {
  query: string;
  filter?: string;
  sort?: string;
  weights?: string;
  groupByPack: boolean;
}

export interface SimilarityRequest extends PageRequest {
  space: string;
  /** A sound id (excluded from the results) or a vector. */
  target: { soundId: number } | { vector: number[] };
  /** Text filter the results must satisfy. */
  filter?: string;
  /** Descriptor filter the results must satisfy (variant A's similar sounds). */
  descriptorsFilter?: string;
}

/**
 * Search by example: the analysis of a sound that is not in the catalogue (an uploaded descriptor
 * file or an analyzed clip). It is compared in `space` when it holds what that space is computed
 * from; without a named space, in the default space if it can be, else by the descriptors a
 * sound-id target compares (the variant-B file has no frame statistics for a space).
 */
export interface SearchExample {
  tree: AnalysisTree;
  /** The space the caller named; an example lacking what it needs is then a 400. */
  space?: string;
}

export interface ContentSearchRequest extends PageRequest {
  /** Descriptor target: `name:value` pairs, or a sound id whose descriptors are the target. */
  target?: string;
  /** Overrides `target`. */
  example?: SearchExample;
  descriptorsFilter?: string;
  /** Combined search: the text part, either a query or a filter. */
  query?: string;
  filter?: string;
}

export interface SearchEngine {
  text(req: TextSearchRequest): Promise<Hits>;
  /** Undefined when the target sound is unknown or has no vector in the space. */
  similar(req: SimilarityRequest): Promise<Hits | undefined>;
  content(req: ContentSearchRequest): Promise<Hits>;
  spaces(): { names: string[]; defaultSpace: string };
  /** Names usable in content search targets and filters (variant A descriptors response). */
  descriptorNames(): { oneDimensional: string[]; multiDimensional: string[]; variableLength: string[] };
}

/** Analyzes an audio clip off the event loop (a worker thread), for search by example. */
export interface ClipAnalyzer {
  analyze(file: string, options: AnalyzeClipOptions): Promise<ClipAnalysis>;
}

/** Where a sound's stored files are. Undefined when the file does not exist. */
export type FileKind =
  | 'preview-hq-mp3'
  | 'preview-lq-mp3'
  | 'preview-hq-ogg'
  | 'preview-lq-ogg'
  | 'waveform_m'
  | 'waveform_l'
  | 'spectral_m'
  | 'spectral_l'
  | 'analysis_frames'
  | 'analysis_stats'
  /** Min/max pairs in audiowaveform's JSON format, for the sound page's interactive waveform. */
  | 'peaks';

export interface SoundFiles {
  locate(soundId: number, kind: FileKind): Promise<string | undefined>;
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
