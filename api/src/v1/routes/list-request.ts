import { ValidationError } from '@earshot/common';
import { readV1Page, type V1ListRequest } from '../../application/v1/paging.ts';
import type { HandlerInput } from '../../framework/http/route.ts';
import { readV1Fields } from '../presenters/sound.ts';
import type { V1ListView } from '../presenters/sound-page.ts';

/** A version 1 sound list request: the use case's part (the page) and the presenter's (links, fields). */
export type V1SoundListRequest = V1ListRequest & V1ListView;

/**
 * Paging and field selection read the same way for every version 1 sound list. `cursor` (beyond the
 * contract) walks the list instead of `p`, never together with it.
 */
export function v1ListRequest(
  input: HandlerInput<{ p?: string; sounds_per_page?: string; fields?: string; cursor?: string }, unknown>,
): V1SoundListRequest {
  const { cursor } = input.query;
  if (cursor !== undefined && input.query.p !== undefined)
    throw new ValidationError('cursor: a walk goes by cursor alone; leave out p');
  return {
    links: { origin: input.origin, path: input.path, query: input.rawQuery },
    page: readV1Page(input.query),
    ...(cursor !== undefined ? { cursor } : {}),
    fields: readV1Fields(input.query.fields),
  };
}
