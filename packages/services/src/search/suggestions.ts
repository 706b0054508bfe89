import {
  type Db,
  type NameSuggestion,
  suggestSoundNames,
  suggestTags,
  type TagSuggestion,
} from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';

/** Completions of the start of a search: tags and names of public sounds. */
export interface Suggestions {
  /** The prefix as completed: lower-cased, leading spaces dropped. */
  q: string;
  /** Tags starting with `q`, the most used first (by the public sounds carrying them). */
  tags: TagSuggestion[];
  /** Names of public sounds starting with `q`, each once, the most downloaded first. */
  names: NameSuggestion[];
}

export const SUGGESTION_LIMITS = { prefix: 100, max: 20, default: 10 } as const;

/**
 * Autocomplete for a search box (`/apiv2/search/suggest/`, the web search page): what completes
 * the prefix `q` among the tags and the names of public sounds, at most `limit` of each.
 */
export async function suggestCompletions(
  db: Db,
  request: { q?: string; limit?: number },
): Promise<Suggestions> {
  const q = (request.q ?? '').trimStart().toLowerCase();
  if (q.trim() === '') throw new ValidationError('q: required, the start of a tag or of a sound name');
  if ([...q].length > SUGGESTION_LIMITS.prefix)
    throw new ValidationError(`q: at most ${SUGGESTION_LIMITS.prefix} characters`);
  if (/[\u0000-\u001f\u007f]/.test(q)) throw new ValidationError('q: must not contain control characters');
  const limit = request.limit ?? SUGGESTION_LIMITS.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > SUGGESTION_LIMITS.max)
    throw new ValidationError(`limit: an integer from 1 to ${SUGGESTION_LIMITS.max}`);
  const [tags, names] = await Promise.all([suggestTags(db, q, limit), suggestSoundNames(db, q, limit)]);
  return { q, tags, names };
}
