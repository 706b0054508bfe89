/** Where a signed-in person lands when the sign-in did not say where to go. */
export const SIGNED_IN_LANDING = '/apiv2/account/';

/**
 * The `next` of a sign-in as a same-origin path, or the landing page. Only a path beginning with
 * one `/` is kept: `//host`, `/\host`, schemes and control characters could send the person to
 * another site (an open redirect) once signed in.
 */
export function safeNext(next: string | undefined, fallback = SIGNED_IN_LANDING): string {
  if (!next || next.length > 2000) return fallback;
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return fallback;
  if (/[\u0000-\u001f\u007f]/.test(next)) return fallback;
  const base = 'http://same.invalid';
  try {
    const url = new URL(next, base);
    if (url.origin !== base) return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}
