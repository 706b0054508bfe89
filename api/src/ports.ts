/**
 * What the HTTP layer reads from the rest of the system, as narrow interfaces. Services depend on
 * these; `adapters/` binds them to the catalogue, the search and the similarity engine.
 */

export type LicenseName = 'Attribution' | 'Attribution NonCommercial' | 'Creative Commons 0';

/** A sound as the API shows it: approved and processed (others are never returned). */
export interface SoundRecord {
  id: number;
  userId: number;
  username: string;
  name: string;
  tags: string[];
  description: string;
  category: string | null;
  subcategory: string | null;
  categoryCode: string | null;
  categoryIsUserProvided: boolean;
  geotag: { lat: number; lon: number } | null;
  created: Date;
  license: LicenseName;
  type: string;
  channels: number;
  filesize: number;
  bitrate: number;
  bitdepth: number;
  duration: number;
  samplerate: number;
  md5: string;
  isRemix: boolean;
  wasRemixed: boolean;
  isExplicit: boolean;
  packId: number | null;
  packName: string | null;
  numDownloads: number;
  /** 0–5. */
  avgRating: number;
  numRatings: number;
  numComments: number;
  /** True when the sound has a vector in the default similarity space. */
  similarityReady: boolean;
  /** True when analysis results exist. */
  analysed: boolean;
}

export interface UserRecord {
  id: number;
  username: string;
  about: string;
  homepage: string;
  hasAvatar: boolean;
  dateJoined: Date;
  numSounds: number;
  numPacks: number;
  numPosts: number;
  numComments: number;
}

export interface PackRecord {
  id: number;
  name: string;
  description: string;
  created: Date;
  username: string;
  numSounds: number;
  numDownloads: number;
}

export interface CommentRecord {
  username: string;
  comment: string;
  created: Date;
}

export interface Slice<T> {
  count: number;
  items: T[];
}

/** Catalogue reads. Every list is in a stable order; counts are of the whole list. */
export interface CatalogueReader {
  /** Approved, processed sounds by id, in the order asked; missing ids are left out. */
  soundsByIds(ids: readonly number[]): Promise<SoundRecord[]>;
  userByName(username: string): Promise<UserRecord | undefined>;
  userSounds(userId: number, offset: number, limit: number): Promise<Slice<number>>;
  userPacks(userId: number, offset: number, limit: number): Promise<Slice<PackRecord>>;
  packById(id: number): Promise<PackRecord | undefined>;
  packSounds(packId: number, offset: number, limit: number): Promise<Slice<number>>;
  soundComments(soundId: number, offset: number, limit: number): Promise<Slice<CommentRecord>>;
}

/** Descriptor values of one sound. */
export interface DescriptorReader {
  /** Variant B consolidated descriptors (flat, by name), or undefined when not analysed. */
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

export interface Hits {
  count: number;
  hits: Hit[];
}

export interface TextSearchRequest {
  query: string;
  filter?: string;
  sort?: string;
  weights?: string;
  groupByPack: boolean;
  offset: number;
  limit: number;
}

export interface SimilarityRequest {
  space: string;
  /** A sound id (excluded from the results) or a vector. */
  target: { soundId: number } | { vector: number[] };
  /** Text filter the results must satisfy. */
  filter?: string;
  /** Descriptor filter the results must satisfy (variant A's similar sounds). */
  descriptorsFilter?: string;
  offset: number;
  limit: number;
}

export interface ContentSearchRequest {
  /** Descriptor target: `name:value` pairs, or a sound id whose descriptors are the target. */
  target?: string;
  descriptorsFilter?: string;
  /** Combined search: the text part, either a query or a filter. */
  query?: string;
  filter?: string;
  offset: number;
  limit: number;
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

/**
 * What caches ask before serving an answer: the catalogue's current change version, known to
 * include every change committed before the call. Undefined means "cannot tell" (not listening):
 * then nothing may be served from a cache.
 */
export interface ChangeVersion {
  current(): Promise<number | undefined>;
  /** Called (synchronously, before `current` resolves with the new version) on every change. */
  onChange(listener: () => void): void;
  close(): Promise<void>;
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
  | 'analysis_stats';

export interface SoundFiles {
  locate(soundId: number, kind: FileKind): Promise<string | undefined>;
}
