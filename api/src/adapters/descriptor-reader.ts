import {
  analysisTree,
  consolidatedDescriptors,
  consolidatedDescriptorsOf,
  type Db,
  descriptorRanges,
  soundVectors,
} from '@earshot/catalogue';
import type { DescriptorReader } from '../application/ports.ts';

/** Descriptor values and similarity vectors as the pipeline stored them in the catalogue. */
export function descriptorReader(db: Db, spaceNames: () => string[]): DescriptorReader {
  return {
    consolidated: (soundId) => consolidatedDescriptors(db, soundId),
    consolidatedMany: (soundIds) => consolidatedDescriptorsOf(db, soundIds),
    analysisTree: (soundId) => analysisTree(db, soundId),
    async vectors(soundId) {
      const out: Record<string, number[] | null> = {};
      for (const name of spaceNames()) out[name] = null;
      for (const row of await soundVectors(db, soundId)) out[row.space] = row.vector.map(Number);
      return out;
    },
    ranges: (names) => descriptorRanges(db, names),
  };
}
