/**
 * What never reaches a log line: credentials a request may carry in its query string (the API key
 * as `token`, OAuth2's `code`, `access_token`, `refresh_token`, `client_secret`, version 1's
 * `api_key`) or in fields of a logged object (the `Authorization` header, form fields).
 */
export const SECRET_PARAMETERS = [
  'token',
  'access_token',
  'refresh_token',
  'code',
  'client_secret',
  'api_key',
  'password',
  'csrf_token',
] as const;

export const REDACTED = '[REDACTED]';

// `name=value` where name is a secret parameter, at the start of the query or after & or ;. Names
// are compared case-insensitively and also percent-encoded (t%6Fken), since a server that decodes
// them would read the same parameter.
const SECRET_IN_QUERY = new RegExp(
  `([?&;](?:${SECRET_PARAMETERS.map(encodedAlternatives).join('|')})=)[^&;#]*`,
  'gi',
);

function encodedAlternatives(name: string): string {
  return [...name].map((c) => `(?:${c}|%${c.charCodeAt(0).toString(16)})`).join('');
}

/**
 * The URL (or path with query) with the values of secret parameters replaced by `[REDACTED]`.
 * Cheap for the common case: a URL without a query is returned as it is.
 */
export function redactUrl(url: string): string {
  if (typeof url !== 'string' || !url.includes('=')) return url;
  return url.replace(SECRET_IN_QUERY, `$1${REDACTED}`);
}

/**
 * pino `redact` paths: the fields of logged objects that hold secrets. `code` only under the
 * objects a request's parameters are logged in: an error's `code` (`not_found`, `ECONNREFUSED`)
 * says what went wrong and stays.
 */
export const REDACTED_LOG_PATHS: string[] = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers.cookie',
  '*.headers.cookie',
  ...SECRET_PARAMETERS.filter((p) => p !== 'code').flatMap((p) => [p, `*.${p}`]),
  ...['query', 'body', 'form', 'params'].map((o) => `${o}.code`),
];
