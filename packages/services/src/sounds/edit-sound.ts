import {
  type Db,
  editSound,
  findOrCreatePack,
  getSound,
  isPublicState,
  type SoundEdit,
} from '@earshot/catalogue';
import { EarshotError, NotFoundError } from '@earshot/common';
import { type RawDescription, validateDescription } from '../intake/description-fields.ts';

export class NotYourSoundError extends EarshotError {
  constructor() {
    super(
      "Not authorized. The sound you're trying to edit is not owned by the OAuth2 logged in user.",
      'not_owner',
      403,
    );
  }
}

/**
 * The edit resource: only the given fields change, `tags` replaces the tags, only the uploader
 * may edit. A sound another user cannot see (not public) is a 404 to them, as if missing; the
 * uploader may also edit a sound still pending. Editing twice with the same fields changes
 * nothing the second time (a client may retry).
 */
export async function editOwnSound(
  db: Db,
  userId: number,
  soundId: number,
  fields: RawDescription,
): Promise<{ detail: string }> {
  const sound = await getSound(db, soundId);
  if (!sound || (sound.user_id !== userId && !isPublicState(sound)))
    throw new NotFoundError('No Sound matches the given query.');
  if (sound.user_id !== userId) throw new NotYourSoundError();
  const d = validateDescription(fields, 'edit');
  const edit: SoundEdit = {
    name: d.name,
    tags: d.tags,
    description: d.description,
    license: d.license,
    geotag: d.geotag,
  };
  if (d.category !== undefined) {
    edit.category = d.category;
    edit.subcategory = d.subcategory;
    edit.categoryIsUserProvided = true;
  }
  if (d.packName !== undefined)
    edit.packId = d.packName === null ? null : (await findOrCreatePack(db, userId, d.packName)).id;
  await editSound(db, soundId, edit);
  return { detail: `Description of sound ${soundId} successfully edited.` };
}
