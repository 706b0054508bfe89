import { ValidationError } from '@earshot/common';
import type { ListRequest } from '../../application/api-context.ts';
import type { PagingStyle } from '../../application/paging.ts';
import type { Variant } from '../../application/records.ts';
import type { HandlerInput } from '../../framework/http/route.ts';
import { type LinkBase, readPageQuery } from '../presenters/pagination.ts';
import { type SoundContext, soundColumns } from '../presenters/sound.ts';
import { selectFields, soundReads } from '../presenters/sound-fields.ts';

interface ListQuery {
  page?: string;
  cursor?: string;
  page_size?: string;
  fields?: string;
  descriptors?: string;
  normalized?: string;
}

/**
 * A sound list request as a version 2 route reads it: the use case's part (page, what to read of
 * each sound) and the presenter's (where links point, which fields to show).
 */
export interface SoundListRequest extends ListRequest {
  links: LinkBase;
  sounds: SoundContext;
}

type RequestInput = Pick<HandlerInput<ListQuery, unknown>, 'query' | 'rawQuery' | 'origin' | 'path'>;

/** Reads paging, field selection and variant A options the same way for every sound list. */
export function listRequest(
  input: RequestInput,
  variant: Variant,
  style: PagingStyle,
  allowScore: boolean,
): SoundListRequest {
  const selection = selectFields(input.query.fields, { variant, kind: 'list', allowScore });
  const { cursor } = input.query;
  if (cursor !== undefined && input.query.page !== undefined)
    throw new ValidationError('cursor: a walk goes by cursor alone; leave out page');
  return {
    links: linkBase(input),
    page: readPageQuery(input.query, style),
    ...(cursor !== undefined ? { cursor } : {}),
    reads: {
      ...soundReads(selection, {
        descriptors: input.query.descriptors,
        normalized: input.query.normalized === '1',
      }),
      columns: soundColumns(selection),
    },
    sounds: { origin: input.origin, variant, selection },
  };
}

/** Links of a list answer echo the request's path and query (only `page`, or `cursor`, replaced). */
export function linkBase(input: Pick<RequestInput, 'rawQuery' | 'origin' | 'path'>): LinkBase {
  return { origin: input.origin, path: input.path, query: input.rawQuery };
}
