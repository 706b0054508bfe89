import {
  createCredential,
  createUser,
  type Db,
  findCredentialByClientId,
  findUserByName,
  inTransaction,
  isRateLimitLevelName,
  RATE_LIMIT_LEVELS,
  type RateLimitLevelName,
  rateLimitLevelName,
  setCredentialRateLimitLevel,
} from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';

export interface ApiCredentialRequest {
  /** The owner; created on the spot when unknown, so a fresh install can be tried at once. */
  username: string;
  /** The application's name. */
  name: string;
  redirectUri: string;
  description?: string;
  /** The rate-limit level an administrator gives it (default `standard`). */
  level?: string;
}

export interface CreatedCredential {
  client_id: string;
  /** The API key of the token strategy, and the OAuth2 client secret. */
  client_secret: string;
  name: string;
  username: string;
  redirect_uri: string;
  rate_limit_level: RateLimitLevelName;
  /** True when the user did not exist and was created for the credential. */
  user_created: boolean;
}

/**
 * Issues an API credential for a user (`earshot credentials create`, the demo account, tests and
 * benchmarks). Ids are 20 letters and digits and secrets 40, like the original service.
 */
export function createApiCredential(db: Db, request: ApiCredentialRequest): Promise<CreatedCredential> {
  const level = parseLevel(request.level ?? 'standard');
  return inTransaction(db, async (trx) => {
    const existing = await findUserByName(trx, request.username);
    const user = existing ?? (await createUser(trx, { username: request.username }));
    const credential = await createCredential(trx, {
      userId: user.id,
      name: request.name,
      description: request.description,
      redirectUri: request.redirectUri,
      rateLimitLevel: RATE_LIMIT_LEVELS[level],
    });
    return {
      client_id: credential.client_id,
      client_secret: credential.client_secret,
      name: credential.name,
      redirect_uri: credential.redirect_uri,
      rate_limit_level: rateLimitLevelName(credential.rate_limit_level),
      username: user.username,
      user_created: !existing,
    };
  });
}

/**
 * Gives an existing credential another rate-limit level (`earshot credentials level`). Running
 * API processes see it when their credential cache entry expires (at most 30 s).
 */
export async function setApiCredentialLevel(
  db: Db,
  clientId: string,
  level: string,
): Promise<{ client_id: string; previous: RateLimitLevelName; rate_limit_level: RateLimitLevelName }> {
  const name = parseLevel(level);
  const credential = await findCredentialByClientId(db, clientId);
  if (!credential) throw new NotFoundError(`No credential has the client id '${clientId}'`);
  await setCredentialRateLimitLevel(db, credential.id, RATE_LIMIT_LEVELS[name]);
  return {
    client_id: clientId,
    previous: rateLimitLevelName(credential.rate_limit_level),
    rate_limit_level: name,
  };
}

function parseLevel(level: string): RateLimitLevelName {
  if (isRateLimitLevelName(level)) return level;
  throw new ValidationError(
    `Unknown rate-limit level '${level}': use one of ${Object.keys(RATE_LIMIT_LEVELS).join(', ')}`,
  );
}
