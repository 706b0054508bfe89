import { createCredential, createUser, type Db, findUserByName, inTransaction } from '@earshot/catalogue';

export interface ApiCredentialRequest {
  /** The owner; created on the spot when unknown, so a fresh install can be tried at once. */
  username: string;
  /** The application's name. */
  name: string;
  redirectUri: string;
  description?: string;
}

export interface CreatedCredential {
  client_id: string;
  /** The API key of the token strategy, and the OAuth2 client secret. */
  client_secret: string;
  name: string;
  username: string;
  redirect_uri: string;
  /** True when the user did not exist and was created for the credential. */
  user_created: boolean;
}

/**
 * Issues an API credential for a user (`earshot credentials create`, the demo account, tests and
 * benchmarks). Ids are 20 letters and digits and secrets 40, like the original service.
 */
export function createApiCredential(db: Db, request: ApiCredentialRequest): Promise<CreatedCredential> {
  return inTransaction(db, async (trx) => {
    const existing = await findUserByName(trx, request.username);
    const user = existing ?? (await createUser(trx, { username: request.username }));
    const credential = await createCredential(trx, {
      userId: user.id,
      name: request.name,
      description: request.description,
      redirectUri: request.redirectUri,
    });
    return {
      client_id: credential.client_id,
      client_secret: credential.client_secret,
      name: credential.name,
      redirect_uri: credential.redirect_uri,
      username: user.username,
      user_created: !existing,
    };
  });
}
