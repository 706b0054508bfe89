// Whether a failed statement failed because the database could not be reached (down, restarting,
// refusing connections, the network gone) rather than because of the statement: the first is worth
// a retry and is no fault of the request, so callers answer it as "unavailable", not as a bug.

/** Socket-level failures of reaching the server or of a connection breaking under a statement. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOENT', // a unix socket that is not there (an embedded host gone)
]);

/**
 * SQLSTATEs of a server that is going away or not taking connections: class 08 (connection
 * exception), admin/crash shutdown and "cannot connect now" (57P01–57P03), too many connections.
 */
function unavailableState(code: string): boolean {
  return (
    code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300'
  );
}

/** pg's own messages for a connection lost mid-statement or never obtained in time. */
const LOST_CONNECTION =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/;

export function isCatalogueUnavailable(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || unavailableState(code))) return true;
  if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true;
  // An AggregateError (every address of a host refused) carries the causes.
  const errors = (err as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isCatalogueUnavailable);
}
