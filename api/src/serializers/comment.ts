import type { CommentRecord } from '../ports.ts';
import type { CommentJson } from './schemas.ts';
import { v2Timestamp } from './timestamps.ts';

export function serialiseComment(comment: CommentRecord): CommentJson {
  return { username: comment.username, comment: comment.comment, created: v2Timestamp(comment.created) };
}
