import type {
  Page as CataloguePage,
  SoundRecord as CatalogueSound,
  Facets,
  SoundRecordColumn,
  UserRecord,
} from '@earshot/catalogue';

/**
 * What the API's use cases return: typed records, never JSON and never links. Versions 2 and 1
 * make their JSON of them (with absolute links) once, in their own layers; the web pages make
 * view models of them. Where the catalogue's row already is the record (a user, a pack, a comment, a bookmark
 * category, the pending uploads) the use cases return it as it is: `UserRecord`, `PackView`,
 * `CommentView`, `BookmarkCategoryView` (`@earshot/catalogue`), `PendingUploadsRecord`
 * (`@earshot/services`).
 */

/** API_VARIANT: the contract's two flavours, which differ in how a sound's analysis is shown and asked for. */
export type Variant = 'A' | 'B';

/** A page of a cursor walk: the cursors of the pages beside it (null: none in that direction). */
export interface WalkCursors {
  next: string | null;
  previous: string | null;
}

/** One page of a list: the items of the page asked for and the count of the whole list. */
export interface Page<T> extends CataloguePage<T> {
  /** The 1-based page these items are (`last` resolved); 1 for a page of a cursor walk. */
  page: number;
  pageSize: number;
  /** A page of a cursor walk: the cursors of its neighbours (the answer links them instead of pages). */
  cursors?: WalkCursors;
  /** A page of a cursor walk: the position of its first sound in the walk (0 on the first page). */
  walkOffset?: number;
  /** A text search's facets over all its matches, when the request asked for them (issue 36). */
  facets?: Facets;
}

/** A grouped search's pack: the sound stands for `count` matches of its pack, itself included. */
export interface PackGroup {
  count: number;
  /** The pack's key in the search filter language (`pack_grouping:"…"`). */
  grouping?: string;
}

/**
 * A sound as a use case answers it: the catalogue's row and, beside it, what this answer adds. The
 * additions are there only when the request asked for them (`SoundReads`) or the search gave them.
 * The row is held, not copied: it is shared between requests (the record cache), and copying its
 * 33 columns into a record of each hit cost a page of similar sounds more than its rendering.
 */
export interface SoundRecord {
  /** The catalogue's row, shared with other requests: never modified. */
  sound: CatalogueSound;
  /** The search's relevance or similarity. */
  score?: number;
  /** A search sorted by target values: the distance to them (null when the sound lacks one). */
  distanceToTarget?: number | null;
  /** Variant B descriptor values by name: the ones asked for (a name the sound lacks is absent). */
  descriptors?: Record<string, unknown>;
  /** Variant B `sim_<space>` fields: the sound's vector in each space (null when it has none there). */
  vectors?: Record<string, number[] | null>;
  /** Variant A: the analysis tree's branches the `descriptors` parameter names; null when none. */
  analysis?: Record<string, unknown> | null;
  /** Variant A: the consolidated descriptor values; null when the sound has none. */
  acAnalysis?: Record<string, unknown> | null;
  /** A grouped search: the pack this sound stands for. */
  samePack?: PackGroup;
}

/**
 * What a use case reads for each sound beyond its catalogue row. Only what the answer will show is
 * read: each costs a read of the descriptor tables.
 */
export interface SoundReads {
  /** The columns of each sound's row the answer shows (absent: every column). */
  columns?: ReadonlySet<SoundRecordColumn>;
  /** Variant B descriptor values, by name. */
  descriptors?: readonly string[];
  /** Variant A's `analysis`: the branches `pick` names (none: null), scaled when `normalized`. */
  analysis?: { pick?: string; normalized?: boolean };
  /** Variant A's `ac_analysis`. */
  acAnalysis?: boolean;
  /** Variant B's `sim_<space>` fields: the sound's similarity vectors (one read per sound). */
  vectors?: boolean;
}

/** The end user an OAuth2 token acts for: the public user record and what identifies them. */
export type AccountRecord = UserRecord & { email: string };

/** What a search by example (`analysis_file`, `audio_file`) adds to its answer. */
export interface ExampleNote {
  /** Present when the clip was cut to its first 30 s. */
  note?: string;
  /** Seconds of the clip that were analyzed. */
  analyzedSeconds?: number;
}
