import type { ChangeVersion } from '@earshot/catalogue';
import { versionInScope } from '../../caches/answer-cache.ts';

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
