import {
  addComment,
  bookmarkSound,
  type Db,
  getBookmark,
  getPublicSound,
  getRating,
  rateSound,
  type SoundView,
} from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';

/** Longest comment kept, in characters (the contract sets none; a page of text is plenty). */
export const COMMENT_MAX = 4000;
/** Longest bookmark or bookmark category name, in characters (as upstream's models). */
export const BOOKMARK_NAME_MAX = 128;

/** What a client sent, as text: form fields, query parameters or JSON values all arrive as strings. */
export type FeedbackInput = Readonly<Record<string, string | undefined>>;

/** Per-field problems, shown to the client as `{"detail": {"rating": ["…"]}}` (upstream's shape). */
export class FieldErrors extends ValidationError {
  constructor(readonly fields: Record<string, string[]>) {
    super(
      Object.entries(fields)
        .map(([name, messages]) => `${name}: ${messages.join(' ')}`)
        .join('; '),
      fields,
    );
  }
}

export interface UserFeedback {
  rating?: number;
  bookmark?: { name: string; category: string | null };
}

const REQUIRED = 'This field is required.';
const RATING_RANGE = 'You have to introduce an integer value between 0 and 5 (both included).';

/**
 * Rating, commenting and bookmarking a sound on behalf of a user (the contract's write resources
 * `rate/`, `comment/`, `bookmark/`). Only public sounds (approved and processed) take them: any
 * other id is a 404, as upstream. Each returns the success `detail` upstream sends.
 */
export class SoundFeedback {
  constructor(private readonly db: Db) {}

  /** Once per user and sound: a second rating is a 409 (catalogue's AlreadyRatedError). */
  async rate(userId: number, soundId: number, input: FeedbackInput): Promise<string> {
    const rating = readRating(input.rating);
    await this.publicSound(soundId);
    await rateSound(this.db, { soundId, userId, rating });
    return `Successfully rated sound ${soundId}.`;
  }

  /** Stored as the plain text sent (trimmed); renderers escape it wherever it is shown. */
  async comment(userId: number, soundId: number, input: FeedbackInput): Promise<string> {
    const comment = readText(input.comment, COMMENT_MAX, { required: true });
    if (typeof comment !== 'string') throw new FieldErrors({ comment: comment?.errors ?? [REQUIRED] });
    await this.publicSound(soundId);
    await addComment(this.db, { soundId, userId, comment });
    return `Successfully commented sound ${soundId}.`;
  }

  /**
   * Without a name the bookmark takes the sound's; without a category it is uncategorized, and an
   * unknown category is created. Repeating it (a client's retry) keeps one bookmark: the sound's
   * bookmark is moved and renamed rather than duplicated.
   */
  async bookmark(userId: number, soundId: number, input: FeedbackInput): Promise<string> {
    const name = readText(input.name, BOOKMARK_NAME_MAX, { required: false });
    const category = readText(input.category, BOOKMARK_NAME_MAX, { required: false });
    const errors: Record<string, string[]> = {};
    if (typeof name === 'object') errors.name = name.errors;
    if (typeof category === 'object') errors.category = category.errors;
    if (Object.keys(errors).length > 0) throw new FieldErrors(errors);
    const sound = await this.publicSound(soundId);
    await bookmarkSound(this.db, {
      userId,
      soundId,
      name: (name as string | undefined) || sound.name,
      category: (category as string | undefined) || undefined,
    });
    return `Successfully bookmarked sound ${soundId}.`;
  }

  /** What this user has given the sound so far: their rating and their bookmark (for a sound page). */
  async mine(userId: number, soundId: number): Promise<UserFeedback> {
    const [rating, bookmark] = await Promise.all([
      getRating(this.db, soundId, userId),
      getBookmark(this.db, userId, soundId),
    ]);
    return { rating, bookmark };
  }

  private async publicSound(soundId: number): Promise<SoundView> {
    const sound = await getPublicSound(this.db, soundId);
    if (!sound) throw new NotFoundError('Not found.');
    return sound;
  }
}

/** An integer from 0 to 5 written in decimal ("4", " 4 "); anything else says what is wrong. */
export function readRating(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') throw new FieldErrors({ rating: [REQUIRED] });
  const text = raw.trim();
  if (!/^[+-]?\d+$/.test(text)) throw new FieldErrors({ rating: ['A valid integer is required.'] });
  const rating = Number(text);
  if (rating < 0 || rating > 5) throw new FieldErrors({ rating: [RATING_RANGE] });
  return rating;
}

/**
 * Trimmed text within `max` characters. Blank counts as missing: an error when required, undefined
 * otherwise.
 */
function readText(
  raw: string | undefined,
  max: number,
  options: { required: boolean },
): string | undefined | { errors: string[] } {
  const text = raw?.trim() ?? '';
  if (text === '') {
    if (!options.required) return undefined;
    return { errors: [raw === undefined ? REQUIRED : 'This field may not be blank.'] };
  }
  const length = [...text].length;
  if (length > max) {
    return { errors: [`Ensure this field has no more than ${max} characters (it has ${length}).`] };
  }
  return text;
}
