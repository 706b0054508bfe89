import type { AuthorizationRequest } from '@earshot/services';

/**
 * The authorize step's parameters the pages carry from the query to the consent form and back
 * (API.md "Authentication" step 1, plus what RFC 6749 and PKCE add). Anything else in the query
 * (upstream's `original_path`, for instance) is ignored.
 */
export const AUTHORIZE_PARAMS = [
  'client_id',
  'response_type',
  'state',
  'redirect_uri',
  'scope',
  'code_challenge',
  'code_challenge_method',
] as const;

export const AUTHORIZE_PATH = '/apiv2/oauth2/authorize/';

/** The parameters of a GET (query) or of the consent form's POST; undefined when one is repeated. */
export function authorizeParams(
  source: Record<string, string | string[] | undefined>,
): { params: AuthorizationRequest; repeated?: undefined } | { params?: undefined; repeated: string } {
  const params: Record<string, string> = {};
  for (const name of AUTHORIZE_PARAMS) {
    const value = source[name];
    // RFC 6749 3.1: a parameter must not be sent more than once (which `state` would come back?).
    if (Array.isArray(value)) return { repeated: name };
    if (value !== undefined) params[name] = value;
  }
  return { params };
}

/** The authorize page's address with these parameters: where the sign-in page comes back to. */
export function authorizeUrl(params: AuthorizationRequest): string {
  const query = new URLSearchParams();
  for (const name of AUTHORIZE_PARAMS) {
    const value = params[name];
    if (value !== undefined) query.set(name, value);
  }
  const text = query.toString();
  return text ? `${AUTHORIZE_PATH}?${text}` : AUTHORIZE_PATH;
}

/** The consent form's hidden fields, in a fixed order (the template only prints them). */
export function hiddenFields(params: AuthorizationRequest): { name: string; value: string }[] {
  return AUTHORIZE_PARAMS.filter((n) => params[n] !== undefined).map((name) => ({
    name,
    value: params[name] as string,
  }));
}
