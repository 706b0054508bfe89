import type { SoundRecord } from '@earshot/catalogue';
import type { CatalogueReader, Hit } from '../../application/ports.ts';
import { serializeV1Sound, type V1Sound, type V1SoundKind } from './sound.ts';

/** Extras a list adds to a sound after field selection (distance, geotag, bookmark_name…). */
export type V1Extras = (record: SoundRecord, hit: Hit, index: number) => Record<string, unknown> | undefined;

/**
 * Ids (in result order) to version 1 records with one catalogue read, as version 2's presenter
 * does; hits whose sound is no longer visible are left out.
 */
export class LegacyPresenter {
  constructor(private readonly catalogue: CatalogueReader) {}

  async present(
    hits: readonly Hit[],
    origin: string,
    options: { kind?: V1SoundKind; fields?: readonly string[]; extras?: V1Extras } = {},
  ): Promise<V1Sound[]> {
    const records = await this.catalogue.soundsByIds(hits.map((h) => h.id));
    const byId = new Map(records.map((r) => [r.id, r]));
    const out: V1Sound[] = [];
    hits.forEach((hit, i) => {
      const record = byId.get(hit.id);
      if (!record) return;
      const sound = serializeV1Sound(record, origin, options.kind ?? 'collection', options.fields);
      const extras = options.extras?.(record, hit, i);
      out.push(extras ? Object.assign(sound, extras) : sound);
    });
    return out;
  }

  async record(id: number): Promise<SoundRecord | undefined> {
    return (await this.catalogue.soundsByIds([id]))[0];
  }
}
