import { RenderedCache } from '../http/rendered-json.ts';
import type { CatalogueReader, DescriptorReader, SearchEngine, SoundFiles } from '../ports.ts';
import type { Variant } from '../serializers/sound-fields.ts';
import { PeopleService } from './people.ts';
import { SearchService } from './search.ts';
import { SoundPresenter } from './sound-presenter.ts';
import { SoundService } from './sounds.ts';

/** The read model the version 2 routes stand on. */
export interface ApiPorts {
  catalogue: CatalogueReader;
  descriptors: DescriptorReader;
  search: SearchEngine;
  files: SoundFiles;
  /** How long a rendered sound instance is reused (default 5 s, like the record cache; 0 = never). */
  responseCacheMs?: number;
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
}

export function createServices(ports: ApiPorts, variant: Variant): ApiServices {
  const presenter = new SoundPresenter(ports.catalogue, ports.descriptors, variant);
  return {
    variant,
    sounds: new SoundService(ports.catalogue, ports.descriptors, ports.search, presenter),
    search: new SearchService(ports.search, presenter),
    people: new PeopleService(ports.catalogue, presenter),
    engine: ports.search,
    files: ports.files,
    renderedSounds: new RenderedCache(ports.responseCacheMs ?? 5_000),
  };
}
