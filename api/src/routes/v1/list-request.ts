import type { HandlerInput } from '../../http/route.ts';
import { readV1Fields } from '../../serializers/v1/sound.ts';
import { readV1Page, type V1ListRequest } from '../../services/v1/paging.ts';

/** Paging and field selection read the same way for every version 1 sound list. */
export function v1ListRequest(
  input: HandlerInput<{ p?: string; sounds_per_page?: string; fields?: string }, unknown>,
): V1ListRequest {
  return {
    links: { origin: input.origin, path: input.path, query: input.rawQuery },
    page: readV1Page(input.query),
    fields: readV1Fields(input.query.fields),
  };
}
