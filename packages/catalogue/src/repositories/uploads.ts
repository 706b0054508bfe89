import { sql } from 'kysely';
import type { PendingUpload } from '../schema/database.ts';
import { sameSizeOriginals } from './same-size-originals.ts';
import { ConflictError, type Db, isUniqueViolation } from './shared.ts';

/** An uploaded file that still awaits its description, as it is recorded. */
export interface NewPendingUpload {
  userId: number;
  filename: string;
  storedPath: string;
  filesize: number;
  md5?: string | null;
  crc32?: number | null;
}

/** Records an uploaded file that still awaits its description. */
export function addPendingUpload(db: Db, input: NewPendingUpload): Promise<PendingUpload> {
  return namedOnce(
    input.filename,
    db
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
      .executeTakeFirstOrThrow(),
  );
}

/**
 * Records an uploaded file that awaits its description, unless a sound's original might hold the
 * same bytes (one of the same size, or one whose size is not known yet): then nothing is recorded
 * and the answer is undefined, and the caller applies the duplicate rule (which hashes) before
 * `addPendingUpload`. The common upload's one round trip after its last byte.
 */
export function addPendingUploadUnlessSameSize(
  db: Db,
  input: Omit<NewPendingUpload, 'md5' | 'crc32'>,
): Promise<PendingUpload | undefined> {
  return namedOnce(
    input.filename,
    db
      .insertInto('pending_uploads')
      .columns(['user_id', 'filename', 'stored_path', 'filesize'])
      .expression(
        db
          .selectNoFrom([
            sql<number>`${input.userId}::integer`.as('user_id'),
            sql<string>`${input.filename}::text`.as('filename'),
            sql<string>`${input.storedPath}::text`.as('stored_path'),
            sql<number>`${input.filesize}::bigint`.as('filesize'),
          ])
          .where(({ not, exists }) =>
            not(exists(sameSizeOriginals(db, input.filesize).select(sql`1`.as('one')))),
          ),
      )
      .returningAll()
      .executeTakeFirst(),
  );
}

/** A pending file's name is the user's once: a second of the same name is a ConflictError. */
async function namedOnce<T>(filename: string, insert: Promise<T>): Promise<T> {
  try {
    return await insert;
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ConflictError(`a file named "${filename}" is already pending description`);
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
