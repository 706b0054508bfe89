import type { ListRequest } from '../../application/api-context.ts';
import { type PagingStyle, readPageQuery } from '../../framework/http/pagination.ts';
import type { HandlerInput } from '../../framework/http/route.ts';
import { selectFields, type Variant } from '../presenters/sound-fields.ts';

interface ListQuery {
  page?: string;
  page_size?: string;
  fields?: string;
  descriptors?: string;
  normalized?: string;
}

/** Reads paging, field selection and variant A options the same way for every sound list. */
export function listRequest(
  input: Pick<HandlerInput<ListQuery, unknown>, 'query' | 'rawQuery' | 'origin' | 'path'>,
  variant: Variant,
  style: PagingStyle,
  allowScore: boolean,
): ListRequest {
  return {
    links: { origin: input.origin, path: input.path, query: input.rawQuery },
    page: readPageQuery(input.query, style),
    selection: selectFields(input.query.fields, { variant, kind: 'list', allowScore }),
    variantA: { descriptors: input.query.descriptors, normalized: input.query.normalized === '1' },
  };
}
