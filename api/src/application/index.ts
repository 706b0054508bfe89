import type { ChangeVersion } from '@earshot/catalogue';
import { RenderedCache } from '../caches/rendered-json.ts';
import { SearchPageCache } from '../caches/search-pages.ts';
import { ChangesService } from './changes.ts';
import { CreditsService } from './credits.ts';
import { EventHub } from './event-hub.ts';
import { ListWalks } from './list-walks.ts';
import { PeopleService } from './people.ts';
import type {
  CatalogueExports,
  CatalogueReader,
  ClipAnalyzer,
  DescriptorReader,
  ListWalkStore,
  SearchEngine,
  SoundChangesReader,
  SoundFiles,
  SoundWrites,
  SuggestionReader,
  UserEventsReader,
  WebhookStore,
} from './ports.ts';
import type { Variant } from './records.ts';
import { SearchService } from './search.ts';
import { type SocialPorts, SocialService } from './social.ts';
import { SoundRecords } from './sound-records.ts';
import { SoundService } from './sounds.ts';
import { createLegacyServices, type LegacyServices } from './v1/index.ts';
import type { LegacyReader } from './v1/ports.ts';

/** The read model the version 2 routes stand on. */
export interface ApiPorts {
  catalogue: CatalogueReader;
  descriptors: DescriptorReader;
  search: SearchEngine;
  files: SoundFiles;
  /** Analyzes `audio_file` clips off the event loop; without it such searches are a 501. */
  clips?: ClipAnalyzer;
  /** How long a rendered sound instance is reused (default 5 s, like the record cache; 0 = never). */
  responseCacheMs?: number;
  /** The catalogue's change version: search pages are kept until it moves (no caching without it). */
  changes?: ChangeVersion;
  /** Version of the in-memory similarity state search answers also depend on. */
  stateVersion?: () => string;
  /** Ratings, comments, bookmarks and downloads; without them those routes are not served. */
  social?: SocialPorts;
  /** Upload, describe, pending uploads and edit; absent = those routes are not served. */
  writes?: SoundWrites;
  /** The reads only version 1 needs; without them `/api/` is not served. */
  legacy?: LegacyReader;
  /** The changes feed's reads; without them `/apiv2/changes/` is not served. */
  soundChanges?: SoundChangesReader;
  /** The bulk export's file; without it `/apiv2/export/` is not served. */
  exports?: CatalogueExports;
  /** The frozen lists of cursor walks; without them a `cursor` parameter is a 400. */
  walks?: ListWalkStore;
  /** Events about users' sounds; without them `/apiv2/me/events/` and the webhooks are not served. */
  events?: { reader: UserEventsReader; webhooks: WebhookStore };
  /** Autocomplete; without it `/apiv2/search/suggest/` is not served. */
  suggestions?: SuggestionReader;
}

export interface ApiServices {
  variant: Variant;
  sounds: SoundService;
  search: SearchService;
  people: PeopleService;
  engine: SearchEngine;
  files: SoundFiles;
  writes?: SoundWrites;
  /** Recently rendered sound instances, by sound, origin and the query parameters that shape them. */
  renderedSounds: RenderedCache;
  /** Rendered search pages until the catalogue changes. */
  searchPages: SearchPageCache;
  social?: SocialService;
  /** The version 1 interface's use cases, over the same ports. */
  v1?: LegacyServices;
  /** The changes feed (`/apiv2/changes/`). */
  changes?: ChangesService;
  /** The bulk export (`/apiv2/export/`). */
  exports?: CatalogueExports;
  /** Credits files for a list of sounds, a pack or a bookmark category (`/apiv2/credits/`, …). */
  credits: CreditsService;
  /** Webhooks and the event stream (`/apiv2/me/webhooks/`, `/apiv2/me/events/`). */
  events?: { hub: EventHub; webhooks: WebhookStore };
  /** Autocomplete (`/apiv2/search/suggest/`, the web search box). */
  suggestions?: SuggestionReader;
}

export function createServices(ports: ApiPorts, variant: Variant): ApiServices {
  const records = new SoundRecords(ports.catalogue, ports.descriptors);
  const walks = new ListWalks(ports.walks);
  const renderedSounds = new RenderedCache(ports.responseCacheMs ?? 5_000);
  // A changed sound is shown changed by the next request, not after the time-based reuse ends.
  ports.changes?.onChange(() => renderedSounds.clear());
  return {
    variant,
    sounds: new SoundService(ports.catalogue, ports.descriptors, ports.search, records, variant, walks),
    search: new SearchService(ports.search, records, walks, ports.clips),
    people: new PeopleService(ports.catalogue, records, walks),
    engine: ports.search,
    files: ports.files,
    writes: ports.writes,
    renderedSounds,
    searchPages: new SearchPageCache(ports.changes, ports.stateVersion ?? (() => '')),
    social: ports.social && new SocialService(ports.social, records, ports.changes, walks),
    v1: ports.legacy && createLegacyServices({ ...ports, legacy: ports.legacy }, records, walks),
    changes: ports.soundChanges && new ChangesService(ports.soundChanges, ports.descriptors),
    exports: ports.exports,
    credits: new CreditsService(ports.catalogue, ports.social?.bookmarks),
    events: ports.events && { hub: new EventHub(ports.events.reader), webhooks: ports.events.webhooks },
    suggestions: ports.suggestions,
  };
}
