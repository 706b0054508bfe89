import type { LinkBase, PageQuery } from '../framework/http/pagination.ts';
import type { FieldSelection } from '../v2/presenters/sound-fields.ts';
import type { VariantAOptions } from '../v2/presenters/sound-presenter.ts';

/** What a listing call needs from the request: where links point, which page, which fields. */
export interface ListRequest {
  links: LinkBase;
  page: PageQuery;
  selection: FieldSelection;
  variantA?: VariantAOptions;
}
