import type { CommentView } from '@earshot/catalogue';
import type { CommentJson } from './schemas.ts';
import { v2Timestamp } from './timestamps.ts';

export function serializeComment(comment: CommentView): CommentJson {
  return { username: comment.username, comment: comment.comment, created: v2Timestamp(comment.created) };
}
