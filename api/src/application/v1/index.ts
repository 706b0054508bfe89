import { LegacyPresenter } from '../../v1/presenters/legacy-presenter.ts';
import type { CatalogueReader, DescriptorReader, SearchEngine } from '../ports.ts';
import { LegacyPeople } from './legacy-people.ts';
import { LegacySearch } from './legacy-search.ts';
import { LegacySounds } from './legacy-sounds.ts';
import type { LegacyReader } from './ports.ts';

/** The use cases of the version 1 interface, over the ports version 2 stands on. */
export interface LegacyServices {
  search: LegacySearch;
  sounds: LegacySounds;
  people: LegacyPeople;
}

export function createLegacyServices(ports: {
  catalogue: CatalogueReader;
  descriptors: DescriptorReader;
  search: SearchEngine;
  legacy: LegacyReader;
}): LegacyServices {
  const presenter = new LegacyPresenter(ports.catalogue);
  return {
    search: new LegacySearch(ports.search, presenter),
    sounds: new LegacySounds(presenter, ports.search, ports.descriptors, ports.legacy),
    people: new LegacyPeople(ports.catalogue, ports.legacy, presenter),
  };
}
