/** Where a signed-in person lands when the sign-in did not say where to go. */
export const SIGNED_IN_LANDING = '/apiv2/account/';

const BASE = 'https://same-origin.invalid';

/**
 * The `next` of a sign-in as a same-origin path, or the landing page: never an open redirect.
 * `next` is resolved against the site as a browser would (WHATWG URL: dot segments, `%2e`,
 * backslashes, stripped tabs and newlines), and kept only when it stays on the site. The path
 * that comes out of that is itself something a browser resolves again when it reads the Location
 * header: a path that begins `//` (from `/.//host`, `/a/..//host`) would name another host there,
 * so it is refused too, and what is emitted is checked to resolve to exactly the same address.
 * Control characters are refused outright (they have no business in a link of this site).
 */
export function safeNext(next: string | undefined, fallback = SIGNED_IN_LANDING): string {
  if (!next || next.length > 2000) return fallback;
  if (!next.startsWith('/') || /[\u0000-\u001f\u007f]/.test(next)) return fallback;
  const url = sameOrigin(next);
  if (!url) return fallback;
  const path = url.pathname + url.search + url.hash;
  // The emitted path must be read back as this very address, not as a host or a scheme.
  if (!path.startsWith('/') || path.startsWith('//') || sameOrigin(path)?.href !== url.href) return fallback;
  return path;
}

function sameOrigin(reference: string): URL | undefined {
  try {
    const url = new URL(reference, BASE);
    return url.origin === BASE ? url : undefined;
  } catch {
    return undefined;
  }
}
