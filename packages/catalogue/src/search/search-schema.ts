import { DESCRIPTOR_COLUMNS } from '../schema/descriptors.ts';

/**
 * The names the search SQL uses. The search document (`sound_search`) is this module's own table
 * (see migrations/*-search.ts); the descriptor, analysis and comment tables belong to the store.
 */
export const SEARCH_TABLE = 'sound_search';

/** The side tables the search migrations maintain next to the document (docs/search.md). */
export const SEARCH_SIDE_TABLES = [
  'search_term_df',
  'search_term_pack',
  'search_tag',
  'search_phrase',
  'search_duration_hist',
  'search_hidden_descriptors',
] as const;

/** The store's tables that filters reach into. */
export const STORE = {
  descriptors: { table: 'sound_descriptors', soundId: 'sound_id' },
  // analysis_a: the full Essentia-layout tree that dotted content-filter names address.
  analysis: { table: 'sound_descriptors', soundId: 'sound_id', column: 'analysis_a' },
  comments: { table: 'comments', soundId: 'sound_id', text: 'comment' },
} as const;

/** SQL types of the search document's numeric columns, so bound values are cast to what the index expects. */
export const NUMERIC_COLUMN_TYPES: Record<string, 'int4' | 'int8' | 'float8'> = {
  id: 'int4',
  channels: 'int4',
  filesize: 'int8',
  bitrate: 'float8',
  bitdepth: 'int4',
  duration: 'float8',
  samplerate: 'int4',
  num_downloads: 'int4',
  avg_rating: 'float8',
  num_ratings: 'int4',
  num_comments: 'int4',
  ...Object.fromEntries(DESCRIPTOR_COLUMNS.int.map((c) => [c, 'int4' as const])),
};

/** The text-search configuration of every tsvector and tsquery (stemming, stopwords). */
export const TS_CONFIG = 'english';
