/**
 * Reads the query string the way real clients need: the last value of a repeated key wins, and a
 * trailing `?` on a value or a leading `?` on a key is dropped. Clients follow `next` links verbatim
 * and append `?` or `?&format=json` to them (DECISIONS.md), which would otherwise turn `page=2`
 * into `page=2?` and break the request.
 */
export function readRawQuery(querystring: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawKey, rawValue] of new URLSearchParams(querystring)) {
    const key = rawKey.replace(/^\?+/, '');
    if (key === '') continue;
    out[key] = rawValue.replace(/\?+$/, '');
  }
  return out;
}
