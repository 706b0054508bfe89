import type { ListWalks } from '../list-walks.ts';
import type { CatalogueReader, DescriptorReader, SearchEngine } from '../ports.ts';
import type { SoundRecords } from '../sound-records.ts';
import { LegacyPeople } from './legacy-people.ts';
import { LegacySearch } from './legacy-search.ts';
import { LegacySounds } from './legacy-sounds.ts';
import type { LegacyReader } from './ports.ts';

/** The use cases of the version 1 interface, over the ports (and the cursor walks) version 2 stands on. */
export interface LegacyServices {
  search: LegacySearch;
  sounds: LegacySounds;
  people: LegacyPeople;
}

export function createLegacyServices(
  ports: {
    catalogue: CatalogueReader;
    descriptors: DescriptorReader;
    search: SearchEngine;
    legacy: LegacyReader;
  },
  records: SoundRecords,
  walks: ListWalks,
): LegacyServices {
  return {
    search: new LegacySearch(ports.search, records, walks),
    sounds: new LegacySounds(ports.catalogue, records, ports.search, ports.descriptors, ports.legacy, walks),
    people: new LegacyPeople(ports.catalogue, ports.legacy, records, walks),
  };
}
