/**
 * An uploader's preference on the use of their sounds to train generative AI models (Freesound's
 * `gen_ai_preference`, 2025), one per user and shown on each of their sounds. With the speech
 * opt-out set, their solo-speech sounds (Broad Sound Taxonomy `sp-s`) are `no-gen-ai` whatever the
 * preference: the SQL function `sound_gen_ai_preference` (migration 20261210100000) decides it, for
 * the sound records and the search filter alike.
 */
export const GEN_AI_PREFERENCES = [
  'no-additional-preferences',
  'open-source-models',
  'noncommercial-open-source-models',
  'no-gen-ai',
] as const;

export type GenAiPreference = (typeof GEN_AI_PREFERENCES)[number];

export const DEFAULT_GEN_AI_PREFERENCE: GenAiPreference = 'no-additional-preferences';

/** The Broad Sound Taxonomy subcategory the speech opt-out covers: Speech › Solo speech. */
export const SOLO_SPEECH_CATEGORY_CODE = 'sp-s';

export function isGenAiPreference(value: string): value is GenAiPreference {
  return (GEN_AI_PREFERENCES as readonly string[]).includes(value);
}
