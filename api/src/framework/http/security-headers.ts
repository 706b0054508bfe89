/**
 * Headers every answer carries (issue 19). Nothing here depends on the request, so they are
 * constants the Koa middleware and the hot path share.
 *
 * - `nosniff`: a browser never runs a JSON body or an uploaded file as a script or a page.
 * - `Referrer-Policy: no-referrer`: OAuth2 codes and `?token=` keys in a page's address never leak to
 *   another site through the Referer header.
 * - No framing anywhere (`X-Frame-Options` for old browsers, `frame-ancestors` for the rest): the
 *   consent and credentials pages cannot be overlaid by another site (clickjacking).
 */
export const CONTENT_TYPE_OPTIONS = 'nosniff';
export const REFERRER_POLICY = 'no-referrer';
export const FRAME_OPTIONS = 'DENY';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': CONTENT_TYPE_OPTIONS,
  'Referrer-Policy': REFERRER_POLICY,
  'X-Frame-Options': FRAME_OPTIONS,
};

/** API answers, media files and errors: nothing to load, nothing to run. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** The web pages: this site's stylesheet, scripts (files only, none inline), media and peaks; forms post here only. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
