/**
 * The rendered-cache key of a sound instance: everything its body depends on (the variant is
 * fixed per server). Shared by the route and the hot path so both find the same entry.
 */
export function soundInstanceKey(
  soundId: number,
  origin: string,
  query: { fields?: string; descriptors?: string; normalized?: string },
): string {
  return JSON.stringify([soundId, origin, query.fields, query.descriptors, query.normalized]);
}

/** The rendered-cache key of a version 1 sound (its body depends on the sound and the origin only). */
export function v1SoundInstanceKey(soundId: number, origin: string): string {
  return JSON.stringify(['v1', soundId, origin]);
}
