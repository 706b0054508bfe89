import { FACET_NAMES, type FacetName, GEN_AI_PREFERENCES } from '@earshot/catalogue';
import { z } from 'zod';

/**
 * Response schemas, used by the route definitions (and so by the OpenAPI document). Sounds are
 * open objects because `fields` decides which keys appear.
 */
export const soundSchema = z
  .object({
    id: z.number().int().optional(),
    url: z.string().optional(),
    name: z.string().optional(),
    tags: z.array(z.string()).optional(),
    description: z.string().optional(),
    category: z
      .union([z.string(), z.array(z.string())])
      .nullable()
      .optional(),
    subcategory: z.string().nullable().optional(),
    category_code: z.string().nullable().optional(),
    category_is_user_provided: z.boolean().optional(),
    geotag: z.string().nullable().optional(),
    is_geotagged: z.boolean().optional(),
    created: z.string().optional(),
    license: z.string().optional(),
    gen_ai_preference: z
      .enum(GEN_AI_PREFERENCES)
      .optional()
      .describe(
        "variant B: the uploader's preference on training generative AI models with the sound; `no-gen-ai` on solo speech (`sp-s`) when the uploader opted speech out",
      ),
    type: z.string().optional(),
    channels: z.number().int().optional(),
    filesize: z.number().int().optional(),
    bitrate: z.number().optional(),
    bitdepth: z.number().int().optional(),
    duration: z.number().optional(),
    samplerate: z.number().optional(),
    username: z.string().optional(),
    pack: z.string().nullable().optional(),
    download: z.string().optional(),
    bookmark: z.string().optional(),
    previews: z.record(z.string(), z.string()).optional(),
    images: z.record(z.string(), z.string()).optional(),
    num_downloads: z.number().int().optional(),
    avg_rating: z.number().optional(),
    num_ratings: z.number().int().optional(),
    rate: z.string().optional(),
    comments: z.string().optional(),
    num_comments: z.number().int().optional(),
    comment: z.string().optional(),
    similar_sounds: z.string().nullable().optional(),
    analysis_files: z.array(z.string()).optional(),
    is_explicit: z.boolean().optional(),
    score: z.number().nullable().optional(),
    distance_to_target: z
      .number()
      .nullable()
      .optional()
      .describe(
        'search sorted by target values (`sort=bpm:120`): Euclidean distance of the raw values to the target; null when the sound lacks one of them',
      ),
    is_remix: z.boolean().optional(),
    was_remixed: z.boolean().optional(),
    md5: z.string().optional(),
    attribution: z
      .string()
      .optional()
      .describe(
        "earshot: the credit line in the licence's own words, with links (only when `fields` names it)",
      ),
  })
  .catchall(z.unknown())
  .describe('a sound; which keys appear depends on `fields`');

export const userSchema = z.object({
  url: z.string(),
  username: z.string(),
  about: z.string(),
  homepage: z.string(),
  avatar: z.object({ small: z.string(), medium: z.string(), large: z.string() }).nullable(),
  date_joined: z.string(),
  num_sounds: z.number(),
  sounds: z.string(),
  num_packs: z.number(),
  packs: z.string(),
  num_posts: z.number(),
  num_comments: z.number(),
});

/** `/apiv2/me/`: the user record plus what identifies the end user. */
export const meSchema = userSchema.extend({ email: z.string(), unique_id: z.number().int() });

export const packSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  description: z.string(),
  created: z.string(),
  name: z.string(),
  username: z.string(),
  num_sounds: z.number().int(),
  sounds: z.string(),
  num_downloads: z.number().int(),
});

export const commentSchema = z.object({ username: z.string(), comment: z.string(), created: z.string() });

export type SoundJson = z.infer<typeof soundSchema>;
export type UserJson = z.infer<typeof userSchema>;
export type MeJson = z.infer<typeof meSchema>;
export type PackJson = z.infer<typeof packSchema>;
export type CommentJson = z.infer<typeof commentSchema>;

/** A list entry is null when the index names a sound the catalogue no longer has. */
export const soundListItem = soundSchema.nullable();

/**
 * A text search's `facets` (issue 36, beyond the contract): per facet asked for, its most
 * frequent values over every match as `[value, count]`, count descending, then value ascending.
 */
export const facetsSchema = z
  .object(
    Object.fromEntries(
      FACET_NAMES.map((name) => [
        name,
        z.array(z.tuple([z.union([z.string(), z.number()]), z.number().int()])).optional(),
      ]),
    ) as Record<
      FacetName,
      z.ZodOptional<z.ZodArray<z.ZodTuple<[z.ZodUnion<[z.ZodString, z.ZodNumber]>, z.ZodNumber]>>>
    >,
  )
  .describe(
    "earshot: only when 'facets' is given; per facet, [value, count] of its most frequent values over all matches (a value's count is the count of the same search with that value as a filter)",
  );

export const combinedSchema = z.object({
  results: z.array(soundListItem),
  more: z.string().nullable().describe('absolute link to the next results, null when there are none'),
});

export const descriptorsSchema = z.object({
  'fixed-length': z.object({
    'one-dimensional': z.array(z.string()),
    'multi-dimensional': z.array(z.string()),
  }),
  'variable-length': z.array(z.string()),
});

export const analysisSchema = z.record(z.string(), z.unknown()).describe('descriptor name → value');

/** A bookmark category entry; `id` is 0 for the uncategorized bookmarks (docs/decisions.md). */
export const bookmarkCategorySchema = z.object({
  id: z.number().int(),
  url: z.string(),
  name: z.string(),
  num_sounds: z.number().int(),
  sounds: z.string(),
});

export type BookmarkCategoryJson = z.infer<typeof bookmarkCategorySchema>;

/** What the write resources (rate, comment, bookmark) answer on success. */
export const detailSchema = z.object({ detail: z.string() });
