import {
  ConflictError,
  countLiveCredentialsLocked,
  createCredential,
  createUser,
  type Db,
  findCredentialByClientId,
  findUserByName,
  inTransaction,
  isRateLimitLevelName,
  listCredentials,
  RATE_LIMIT_LEVELS,
  type RateLimitLevelName,
  rateLimitLevelName,
  replaceCredentialSecret,
  revokeCredential,
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
  /**
   * The most live credentials the owner may have (CREDENTIALS_PER_USER); absent = no cap (the
   * operator's `earshot credentials create --over-limit`, the demo account, tests).
   */
  maxPerUser?: number;
}

/** A user asked for one credential more than CREDENTIALS_PER_USER allows (409). */
export class CredentialLimitReached extends ConflictError {
  constructor(readonly max: number) {
    super(
      `An account may have at most ${max} API credentials: revoke one that is no longer used before asking for another.`,
    );
  }
}

export interface CreatedCredential {
  client_id: string;
  /**
   * The API key of the token strategy, and the OAuth2 client secret. Only its digest is stored:
   * this answer is the one time it is known, so whoever asked must show it now.
   */
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
    const max = request.maxPerUser;
    if (max !== undefined && (await countLiveCredentialsLocked(trx, user.id)) >= max) {
      throw new CredentialLimitReached(max);
    }
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

/** Upstream's form limits (ApiV2Client): a name of 64 characters, addresses of 200. */
export const CREDENTIAL_LIMITS = { name: 64, description: 1000, redirectUri: 200 } as const;

export interface CredentialApplication {
  /** The signed-in user asking for it (an existing account). */
  username: string;
  name: string;
  description: string;
  redirectUri: string;
}

/** The form's fields that can be wrong, each with the message shown beside it. */
export type CredentialFieldErrors = Partial<Record<'name' | 'description' | 'redirect_uri', string>>;

/**
 * What is wrong with an application, field by field (empty when nothing is). The redirect URL must
 * be an absolute http(s) address: the application's own callback, or the service's code page
 * (`…/home/app_permissions/permission_granted/`) for an application without a web server.
 */
export function checkCredentialApplication(input: CredentialApplication): CredentialFieldErrors {
  const errors: CredentialFieldErrors = {};
  const name = input.name.trim();
  if (!name) errors.name = 'Give the application a name.';
  else if (name.length > CREDENTIAL_LIMITS.name)
    errors.name = `Use at most ${CREDENTIAL_LIMITS.name} characters for the name.`;
  if (input.description.length > CREDENTIAL_LIMITS.description)
    errors.description = `Use at most ${CREDENTIAL_LIMITS.description} characters for the description.`;
  const redirect = input.redirectUri.trim();
  if (!redirect) errors.redirect_uri = 'Give the redirect URL OAuth2 sends the user back to.';
  else if (redirect.length > CREDENTIAL_LIMITS.redirectUri)
    errors.redirect_uri = `Use at most ${CREDENTIAL_LIMITS.redirectUri} characters for the redirect URL.`;
  else if (!isHttpUrl(redirect))
    errors.redirect_uri = 'Enter a full http:// or https:// address, such as https://example.org/callback.';
  return errors;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * A signed-in user's own request for a credential (the application page): checked field by field,
 * then issued at the standard level, unless the user already has `maxPerUser` live credentials
 * (CredentialLimitReached). A wrong field is a ValidationError whose `details` are the field errors.
 */
export function applyForCredential(
  db: Db,
  input: CredentialApplication,
  maxPerUser: number,
): Promise<CreatedCredential> {
  const errors = checkCredentialApplication(input);
  if (Object.keys(errors).length > 0) {
    throw new ValidationError(Object.values(errors).join(' '), errors);
  }
  return createApiCredential(db, {
    username: input.username,
    name: input.name.trim(),
    description: input.description.trim(),
    redirectUri: input.redirectUri.trim(),
    maxPerUser,
  });
}

export interface CredentialSummary {
  client_id: string;
  /**
   * The API key (also the OAuth2 client secret) as the table's 'Client secret/Api key' column shows
   * it after its creation: masked, its first characters and dots. Only the key's digest is stored;
   * the full key is shown once, when it is made (or remade with `regenerateApiKey`).
   */
  masked_key: string;
  name: string;
  description: string;
  redirect_uri: string;
  status: string;
  rate_limit_level: RateLimitLevelName;
  created: Date;
}

/** A user's credentials, oldest first; revoked ones are gone for good and not listed. */
export async function listUserCredentials(db: Db, userId: number): Promise<CredentialSummary[]> {
  const rows = await listCredentials(db, { userId });
  return rows
    .filter((c) => c.status !== 'revoked')
    .map((c) => ({
      client_id: c.client_id,
      masked_key: maskedKey(c.client_secret_hint),
      name: c.name,
      description: c.description,
      redirect_uri: c.redirect_uri,
      status: c.status,
      rate_limit_level: rateLimitLevelName(c.rate_limit_level),
      created: c.created,
    }));
}

/**
 * Revokes one of the user's credentials: its API key and every OAuth2 token issued to it are
 * refused from now on. Someone else's credential is answered as unknown.
 */
export async function revokeApiCredential(db: Db, userId: number, clientId: string): Promise<void> {
  if (!(await revokeCredential(db, clientId, userId))) {
    throw new NotFoundError(`You have no credential with the client id '${clientId}'.`);
  }
}

/** A key's first characters and dots in place of the rest (every key is 40 characters long). */
export function maskedKey(hint: string): string {
  return `${hint}${'•'.repeat(8)}`;
}

/**
 * Gives one of the user's credentials a new API key (= client secret) and returns it: the one
 * time it is shown. The old key is refused from now on; OAuth2 tokens already issued stay valid
 * (they were granted by the person, not by the key). Someone else's credential is answered as
 * unknown.
 */
export async function regenerateApiKey(
  db: Db,
  userId: number,
  clientId: string,
): Promise<{ client_id: string; client_secret: string; name: string }> {
  const issued = await replaceCredentialSecret(db, clientId, userId);
  if (!issued) throw new NotFoundError(`You have no credential with the client id '${clientId}'.`);
  return { client_id: issued.client_id, client_secret: issued.client_secret, name: issued.name };
}

/** An administrator's `regenerateApiKey` (`earshot credentials regenerate`): any owner's credential. */
export async function regenerateApiKeyOf(
  db: Db,
  clientId: string,
): Promise<{ client_id: string; client_secret: string; name: string }> {
  const credential = await findCredentialByClientId(db, clientId);
  if (!credential) throw new NotFoundError(`No credential has the client id '${clientId}'`);
  return regenerateApiKey(db, credential.user_id, clientId);
}
