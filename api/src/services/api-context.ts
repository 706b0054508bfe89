import type { LinkBase, PageQuery } from '../http/pagination.ts';
import type { FieldSelection } from '../serializers/sound-fields.ts';
import type { VariantAOptions } from './sound-presenter.ts';

/** What a listing call needs from the request: where links point, which page, which fields. */
export interface ListRequest {
  links: LinkBase;
  page: PageQuery;
  selection: FieldSelection;
  variantA?: VariantAOptions;
}
