import type { PendingUpload } from '../schema/database.ts';
import { ConflictError, type Db, isUniqueViolation } from './shared.ts';

/** Records an uploaded file that still awaits its description. */
export async function addPendingUpload(
  db: Db,
  input: {
    userId: number;
    filename: string;
    storedPath: string;
    filesize: number;
    md5?: string | null;
    crc32?: number | null;
  },
): Promise<PendingUpload> {
  try {
    return await db
      .insertInto('pending_uploads')
      .values({
        user_id: input.userId,
        filename: input.filename,
        stored_path: input.storedPath,
        filesize: input.filesize,
        md5: input.md5 ?? null,
        crc32: input.crc32 ?? null,
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

/** Puts a taken pending file back (its description failed after it was taken). */
export async function restorePendingUpload(db: Db, upload: PendingUpload): Promise<void> {
  await db
    .insertInto('pending_uploads')
    .values({
      user_id: upload.user_id,
      filename: upload.filename,
      stored_path: upload.stored_path,
      filesize: upload.filesize,
      md5: upload.md5,
      crc32: upload.crc32,
      created: upload.created,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}
