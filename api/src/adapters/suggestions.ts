import type { Db } from '@earshot/catalogue';
import { suggestCompletions } from '@earshot/services';
import type { SuggestionReader } from '../application/ports.ts';

/** Autocomplete on this catalogue, never cached: each prefix is one or two indexed reads. */
export function suggestionReader(db: Db): SuggestionReader {
  return { suggest: (request) => suggestCompletions(db, request) };
}
