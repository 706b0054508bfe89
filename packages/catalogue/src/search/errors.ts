import { EarshotError, ValidationError } from '@earshot/common';

/** The request parameters a search error can point at; the API names them in its `detail`. */
export type SearchParameter =
  | 'filter'
  | 'query'
  | 'sort'
  | 'weights'
  | 'group_by_pack'
  | 'descriptors_filter'
  | 'q'
  | 'f'
  | 's'
  | 'g'
  | 'page'
  | 'page_size'
  | 'facets'
  | 'facet_limit';

/**
 * A malformed search parameter. `position` is the 0-based character offset in the parameter's
 * text where the problem was found (like JSON.parse), so a client can point at it.
 */
export class SearchSyntaxError extends ValidationError {
  constructor(
    readonly parameter: SearchParameter,
    readonly reason: string,
    readonly position?: number,
  ) {
    super(
      position === undefined
        ? `Invalid ${parameter}: ${reason}`
        : `Invalid ${parameter} at position ${position}: ${reason}`,
      { parameter, position, reason },
    );
  }
}

/**
 * The database refused or failed a search statement. The SQL text and driver message stay in
 * `cause` for the logs; the caller only sees that the search could not run.
 */
export class SearchExecutionError extends EarshotError {
  constructor(message: string, cause?: unknown, status = 400) {
    super(message, 'search_failed', status);
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}

/** A search stopped because its caller gave up on it (the client went away): nobody reads this answer. */
export class SearchAbandoned extends SearchExecutionError {
  constructor(cause?: unknown) {
    super('The search was abandoned by its client.', cause, 400);
  }
}
