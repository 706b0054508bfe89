import path from 'node:path';
import { categoryCode, type Database, type LicenseName } from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';
import type { Kysely } from 'kysely';
import type { SoundStorage } from '../storage/sound-files.ts';

export interface NewSoundInput {
  userId: number;
  /** The file to take in (copied into the data folder). */
  file: string;
  /** The name the uploader gave the file; default: the file's own name. */
  originalFilename?: string;
  /** Default: the file name without its extension. */
  name?: string;
  tags?: string[];
  description?: string;
  license?: LicenseName;
  category?: string | null;
  subcategory?: string | null;
  packName?: string;
  /** Approved at once (moderation skipped). */
  approve?: boolean;
}

/** Turns a file on disk into a catalogue sound waiting for processing (the pipeline takes it from there). */
export class SoundIntake {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly storage: SoundStorage,
  ) {}

  async userIdByName(username: string): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
      .executeTakeFirst();
    if (!row)
      throw new NotFoundError(`There is no user "${username}"; create one with \`earshot users create\`.`);
    return row.id;
  }

  async packId(userId: number, name: string): Promise<number> {
    await this.db
      .insertInto('packs')
      .values({ user_id: userId, name })
      .onConflict((oc) => oc.columns(['user_id', 'name']).doNothing())
      .execute();
    const row = await this.db
      .selectFrom('packs')
      .select('id')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Creates the sound and stores its original; returns the new sound's id. */
  async create(input: NewSoundInput): Promise<number> {
    const originalFilename = input.originalFilename ?? path.basename(input.file);
    const tags = normaliseTags(input.tags ?? []);
    const packId = input.packName ? await this.packId(input.userId, input.packName) : null;
    const inserted = await this.db
      .insertInto('sounds')
      .values({
        user_id: input.userId,
        pack_id: packId,
        name: input.name?.trim() || path.parse(originalFilename).name,
        description: input.description ?? '',
        tags,
        license: input.license ?? 'Creative Commons 0',
        category: input.category ?? null,
        subcategory: input.subcategory ?? null,
        category_code: categoryCode(input.category, input.subcategory),
        // Whatever category arrives here is the uploader's (a sidecar or the import's options).
        category_is_user_provided: input.category != null,
        original_filename: originalFilename,
        // Set once the file is stored under the id this insert assigns.
        original_path: '',
        processing_state: 'Queued',
        processing_stage: 'probe',
        moderation_state: input.approve ? 'ok' : 'pending_moderation',
        ...(input.approve ? { moderated_at: new Date() } : {}),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = inserted.id;
    try {
      const stored = await this.storage.storeOriginal(id, input.file, originalFilename);
      await this.db
        .updateTable('sounds')
        .set({ original_path: this.storage.relative(stored) })
        .where('id', '=', id)
        .execute();
      await this.linkTags(id, tags);
    } catch (err) {
      await this.db.deleteFrom('sounds').where('id', '=', id).execute();
      await this.storage.removeSound(id);
      throw err;
    }
    return id;
  }

  private async linkTags(soundId: number, tags: string[]): Promise<void> {
    if (tags.length === 0) return;
    await this.db
      .insertInto('tags')
      .values(tags.map((name) => ({ name })))
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const rows = await this.db.selectFrom('tags').select('id').where('name', 'in', tags).execute();
    await this.db
      .insertInto('sound_tags')
      .values(rows.map((r) => ({ sound_id: soundId, tag_id: r.id })))
      .onConflict((oc) => oc.columns(['sound_id', 'tag_id']).doNothing())
      .execute();
  }
}

/** Lower case, no spaces inside a tag (upstream joins words with '-'), no duplicates, order kept. */
export function normaliseTags(tags: string[]): string[] {
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim().toLowerCase().replace(/\s+/g, '-');
    if (tag) seen.add(tag);
  }
  return [...seen];
}

export function assertLicense(value: string): LicenseName {
  const known: LicenseName[] = ['Attribution', 'Attribution NonCommercial', 'Creative Commons 0'];
  const match = known.find((l) => l.toLowerCase() === value.trim().toLowerCase());
  if (!match) throw new ValidationError(`Unknown licence "${value}"; use one of: ${known.join(', ')}.`);
  return match;
}
