import type { PendingUpload } from '../schema/database.ts';
import { ConflictError, type Db, isUniqueViolation } from './shared.ts';

/** Records an uploaded file that still awaits its description. */
export async function addPendingUpload(
  db: Db,
  input: { userId: number; filename: string; storedPath: string; filesize: number },
): Promise<PendingUpload> {
  try {
    return await db
      .insertInto('pending_uploads')
      .values({
        user_id: input.userId,
        filename: input.filename,
        stored_path: input.storedPath,
        filesize: input.filesize,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ConflictError(`a file named "${input.filename}" is already pending description`);
    throw err;
  }
}

/** The user's files awaiting description, oldest first. */
export function listPendingUploads(db: Db, userId: number): Promise<PendingUpload[]> {
  return db
    .selectFrom('pending_uploads')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created')
    .orderBy('id')
    .execute();
}

/** Removes and returns a pending file (when it gets described); undefined when no such name is pending. */
export function takePendingUpload(
  db: Db,
  userId: number,
  filename: string,
): Promise<PendingUpload | undefined> {
  return db
    .deleteFrom('pending_uploads')
    .where('user_id', '=', userId)
    .where('filename', '=', filename)
    .returningAll()
    .executeTakeFirst();
}
