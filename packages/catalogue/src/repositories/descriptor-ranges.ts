import { sql } from 'kysely';
import type { Db } from './shared.ts';

/** The smallest and largest value of one analysis leaf over the visible sounds. */
export interface DescriptorRange {
  min: number;
  max: number;
}

/**
 * The current ranges of the named leaves of the variant-A tree (`lowlevel.spectral_centroid.mean`,
 * `lowlevel.mfcc.mean[3]`), over the sounds visible now: triggers keep them exact on every write
 * (migrations/*-descriptor-ranges.ts), so this is one primary-key lookup per name. Leaves no
 * visible sound has, and variable-length lists, are absent from the map.
 */
export async function descriptorRanges(
  db: Db,
  names: readonly string[],
): Promise<Map<string, DescriptorRange>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom('descriptor_ranges')
    .select(['name', 'min', 'max'])
    .where('name', '=', sql<string>`any(${[...new Set(names)]}::text[])`)
    .execute();
  return new Map(rows.map((r) => [r.name, { min: Number(r.min), max: Number(r.max) }]));
}

/** Recomputes every range from scratch: after a bulk load made with the triggers off. */
export async function rebuildDescriptorRanges(db: Db): Promise<void> {
  await sql`select descriptor_ranges_rebuild()`.execute(db);
}
