import type { Comment } from '../schema/database.ts';
import { type Db, inTransaction, type Page, type PageRequest } from './shared.ts';

export interface CommentView extends Comment {
  username: string;
}

/** Adds a comment and counts it on the sound. */
export function addComment(
  db: Db,
  input: { soundId: number; userId: number; comment: string },
): Promise<Comment> {
  return inTransaction(db, async (trx) => {
    const comment = await trx
      .insertInto('comments')
      .values({ sound_id: input.soundId, user_id: input.userId, comment: input.comment })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('sounds')
      .set((eb) => ({ num_comments: eb('num_comments', '+', 1) }))
      .where('id', '=', input.soundId)
      .execute();
    return comment;
  });
}

/** A sound's comments, newest first. */
export async function listComments(db: Db, soundId: number, page: PageRequest): Promise<Page<CommentView>> {
  const [{ count }, items] = await Promise.all([
    db
      .selectFrom('comments')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('sound_id', '=', soundId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('comments')
      .innerJoin('users', 'users.id', 'comments.user_id')
      .selectAll('comments')
      .select('users.username')
      .where('comments.sound_id', '=', soundId)
      .orderBy('comments.created', 'desc')
      .orderBy('comments.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(count), items };
}
