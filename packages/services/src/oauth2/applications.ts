import {
  type AuthorizedApplication,
  type Db,
  findCredentialByClientId,
  listAuthorizedApplications,
  revokeAccess,
} from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';

/** The settings page's list: applications holding an unrevoked token for the user. */
export function authorizedApplications(db: Db, userId: number): Promise<AuthorizedApplication[]> {
  return listAuthorizedApplications(db, userId);
}

/**
 * Ends an application's access for the user: its access and refresh tokens stop working (401
 * 'Invalid token') and its unused codes are deleted. The token change moves the catalogue's change
 * version, which empties the API's cache of valid tokens.
 */
export async function revokeApplication(db: Db, userId: number, clientId: string, now: Date): Promise<void> {
  const credential = await findCredentialByClientId(db, clientId);
  if (!credential) throw new NotFoundError('Not found');
  await revokeAccess(db, credential.id, userId, now);
}
