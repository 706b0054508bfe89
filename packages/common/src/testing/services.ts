import { DEFAULT_TEST_DATABASE_URL, DEFAULT_TEST_REDIS_URL, isReachable } from '../services.ts';

/**
 * Resolves the URL of a service a test suite needs, or undefined when it is unreachable.
 * Unreachable + REQUIRE_SERVICES=1 throws, so CI can never pass by skipping.
 *
 * Usage: `const url = await testService('postgres'); describe.skipIf(!url)('…', () => …)`
 */
export async function testService(kind: 'postgres' | 'redis'): Promise<string | undefined> {
  const url =
    kind === 'postgres'
      ? (process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL)
      : (process.env.REDIS_URL ?? DEFAULT_TEST_REDIS_URL);
  const ok = await isReachable(url, kind === 'postgres' ? 5432 : 6379);
  if (ok) return url;
  const message = `${kind} at ${redact(url)} is not reachable`;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${message} and REQUIRE_SERVICES=1`);
  console.warn(`[skip] ${message}: suites that need it are skipped (set REQUIRE_SERVICES=1 to fail instead)`);
  return undefined;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
