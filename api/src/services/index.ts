import type { ChangeVersion } from '@earshot/catalogue';
import { RenderedCache } from '../caches/rendered-json.ts';
import { SearchPageCache } from '../caches/search-pages.ts';
import type { CatalogueReader, DescriptorReader, SearchEngine, SoundFiles } from '../ports.ts';
import type { Variant } from '../serializers/sound-fields.ts';
import { PeopleService } from './people.ts';
import { SearchService } from './search.ts';
import { SoundPresenter } from './sound-presenter.ts';
import { SoundService } from './sounds.ts';
import { createLegacyServices, type LegacyServices } from './v1/index.ts';
import type { LegacyReader } from './v1/ports.ts';

/** The read model the version 2 routes stand on. */
export interface ApiPorts {
  catalogue: CatalogueReader;
  descriptors: DescriptorReader;
  search: SearchEngine;
  files: SoundFiles;
  /** How long a rendered sound instance is reused (default 5 s, like the record cache; 0 = never). */
  responseCacheMs?: number;
  /** The catalogue's change version: search pages are kept until it moves (no caching without it). */
  changes?: ChangeVersion;
  /** Version of the in-memory similarity state search answers also depend on. */
  stateVersion?: () => string;
  /** The reads only version 1 needs; without them `/api/` is not served. */
  legacy?: LegacyReader;
}

export interface ApiServices {
  variant: Variant;
  sounds: SoundService;
  search: SearchService;
  people: PeopleService;
  engine: SearchEngine;
  files: SoundFiles;
  /** Recently rendered sound instances, by sound, origin and the query parameters that shape them. */
  renderedSounds: RenderedCache;
  /** Rendered search pages until the catalogue changes. */
  searchPages: SearchPageCache;
  /** The version 1 interface's use cases, over the same ports. */
  v1?: LegacyServices;
}

export function createServices(ports: ApiPorts, variant: Variant): ApiServices {
  const presenter = new SoundPresenter(ports.catalogue, ports.descriptors, variant);
  const renderedSounds = new RenderedCache(ports.responseCacheMs ?? 5_000);
  // A changed sound is shown changed by the next request, not after the time-based reuse ends.
  ports.changes?.onChange(() => renderedSounds.clear());
  return {
    variant,
    sounds: new SoundService(ports.catalogue, ports.descriptors, ports.search, presenter),
    search: new SearchService(ports.search, presenter),
    people: new PeopleService(ports.catalogue, presenter),
    engine: ports.search,
    files: ports.files,
    renderedSounds,
    searchPages: new SearchPageCache(ports.changes, ports.stateVersion ?? (() => '')),
    v1: ports.legacy && createLegacyServices({ ...ports, legacy: ports.legacy }),
  };
}
