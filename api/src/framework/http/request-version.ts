import { AsyncLocalStorage } from 'node:async_hooks';
import type { ChangeVersion } from '@earshot/catalogue';

/**
 * The catalogue change version a computation already waited for: the page cache runs the page's
 * computation inside it, so the result and filter caches below reuse that version instead of each
 * waiting for another round trip on the change feed (a round trip that started after the request
 * arrived is all the guarantee needs).
 */
export const versionInScope = new AsyncLocalStorage<number>();

/**
 * Runs a request's handling under the catalogue version read when it arrived, where that version
 * must be read to learn of changes (the embedded database): the caches' listeners have then heard
 * of every change committed before the request, and the caches it consults reuse that one reading
 * instead of each reading again. Nested calls (the hot path falling through to the application)
 * read once.
 */
export async function underRequestVersion<T>(
  changes: ChangeVersion | undefined,
  handle: () => T | Promise<T>,
): Promise<T> {
  if (!changes || versionInScope.getStore() !== undefined) return handle();
  const version = await changes.beforeRequest();
  return version === undefined ? handle() : versionInScope.run(version, handle);
}
