import { EarshotError } from '@earshot/common';

/** 429 with upstream's wording, which names the limit (../shared/spec/UPSTREAM-FACTS.md §5). */
export class Throttled extends EarshotError {
  constructor(
    detail: string,
    /** Seconds until a retry can pass (absent: a suspended credential, which waiting does not help). */
    readonly retryAfterS?: number,
    /** The verdict's headers (X-RateLimit-*, Retry-After): whoever answers the 429 sends them. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail, 'throttled', 429);
  }
}

export function exceededDetail(limit: number, window: 'minute' | 'day'): string {
  return `Request was throttled because of exceeding a request limit rate (${limit}/${window})`;
}

export const SUSPENDED_DETAIL = 'Request was throttled because the ApiV2 credential has been suspended';
