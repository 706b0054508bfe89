import { type Database, descriptorRanges } from '@earshot/catalogue';
import type { Kysely } from 'kysely';
import type { DescriptorReader } from '../ports.ts';

/** Descriptor values and similarity vectors as the pipeline stored them in the catalogue. */
export function descriptorReader(db: Kysely<Database>, spaceNames: () => string[]): DescriptorReader {
  return {
    async consolidated(soundId) {
      const row = await db
        .selectFrom('sound_descriptors')
        .where('sound_id', '=', soundId)
        .select('analysis_b')
        .executeTakeFirst();
      return row?.analysis_b;
    },
    async consolidatedMany(soundIds) {
      if (soundIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('sound_descriptors')
        .where('sound_id', 'in', [...soundIds])
        .select(['sound_id', 'analysis_b'])
        .execute();
      return new Map(rows.map((r) => [r.sound_id, r.analysis_b]));
    },
    async analysisTree(soundId) {
      const row = await db
        .selectFrom('sound_descriptors')
        .where('sound_id', '=', soundId)
        .select('analysis_a')
        .executeTakeFirst();
      return row?.analysis_a;
    },
    async vectors(soundId) {
      const rows = await db
        .selectFrom('sound_similarity_vectors')
        .where('sound_id', '=', soundId)
        .select(['space', 'vector'])
        .execute();
      const out: Record<string, number[] | null> = {};
      for (const name of spaceNames()) out[name] = null;
      for (const row of rows) out[row.space] = row.vector.map(Number);
      return out;
    },
    ranges: (names) => descriptorRanges(db, names),
  };
}
