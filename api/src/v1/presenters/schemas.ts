import { z } from 'zod';

/**
 * Version 1 response schemas, for validation-free documentation: the OpenAPI document of
 * version 1 is generated from them and the route definitions.
 */
const uri = z.string().describe('absolute URI');

const userLink = z.object({ username: z.string(), url: uri, ref: uri });

export const v1SoundSchema = z
  .object({
    id: z.number().int(),
    ref: uri,
    url: uri,
    serve: uri.describe('the original file'),
    similarity: uri,
    'preview-hq-mp3': uri,
    'preview-lq-mp3': uri,
    'preview-hq-ogg': uri,
    'preview-lq-ogg': uri,
    waveform_m: uri,
    waveform_l: uri,
    spectral_m: uri,
    spectral_l: uri,
    analysis: uri,
    analysis_stats: uri.describe('the same as analysis, as the original service named it'),
    analysis_frames: uri,
    type: z.string(),
    duration: z.number(),
    original_filename: z.string(),
    user: userLink,
    tags: z.array(z.string()),
    pack: uri.optional(),
    num_downloads: z.number().int(),
    channels: z.number().int(),
    samplerate: z.number(),
    num_comments: z.number().int(),
    num_ratings: z.number().int(),
    filesize: z.number().int(),
    description: z.string(),
    bitdepth: z.number().int(),
    bitrate: z.number(),
    created: z.string().describe('YYYY-MM-DD HH:MM:SS'),
    avg_rating: z.number(),
    license: z.string(),
    geotag: z.object({ lat: z.number(), lon: z.number() }).optional(),
  })
  .partial()
  .catchall(z.unknown())
  .describe('Sound (version 1); lists show the reduced record plus their extras');

export const v1SoundPageSchema = z.object({
  sounds: z.array(v1SoundSchema),
  num_results: z.number().int(),
  num_pages: z.number().int(),
  previous: uri.optional().describe('absent on the first page (with `cursor`: carrying the previous cursor)'),
  next: uri.optional().describe('absent on the last page (with `cursor`: carrying the next cursor)'),
});

export const v1UserSchema = z.object({
  username: z.string(),
  ref: uri,
  url: uri,
  sounds: uri,
  packs: uri,
  bookmark_categories: uri,
  about: z.string(),
  home_page: z.string(),
  signature: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  date_joined: z.string(),
});

export const v1PackSchema = z.object({
  id: z.number().int(),
  ref: uri,
  url: uri,
  sounds: uri,
  user: userLink,
  name: z.string(),
  description: z.string().optional(),
  created: z.string(),
  num_downloads: z.number().int(),
});

export const v1PackListSchema = z.object({ num_results: z.number().int(), packs: z.array(v1PackSchema) });

export const v1BookmarkCategoriesSchema = z.object({
  num_results: z.number().int(),
  categories: z.array(z.object({ id: z.number().int(), name: z.string(), url: uri, sounds: uri })),
});

export const v1AnalysisSchema = z.unknown().describe('a branch of the analysis tree, or one value');

export type V1UserJson = z.input<typeof v1UserSchema>;
export type V1PackJson = z.input<typeof v1PackSchema>;
export type V1BookmarkCategoryJson = z.input<typeof v1BookmarkCategoriesSchema>['categories'][number];
