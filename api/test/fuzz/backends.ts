import { createTestDatabase } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';

/** A backend a fuzz suite runs on: the environment its server starts with, and how to drop it. */
export interface FuzzBackend {
  name: string;
  env: () => Promise<{ env: Record<string, string>; drop: () => Promise<void> }>;
}

/**
 * The embedded PGlite, and the PostgreSQL server with Redis when they are reachable (or required).
 * FUZZ_BACKENDS=pglite keeps only the embedded one (quicker when replaying a failure by hand),
 * FUZZ_BACKENDS=server only the server one.
 */
export async function fuzzBackends(): Promise<FuzzBackend[]> {
  const only = process.env.FUZZ_BACKENDS;
  const postgres = await testService('postgres');
  const redis = await testService('redis');
  const backends: FuzzBackend[] = [];
  if (only !== 'server')
    backends.push({ name: 'embedded PGlite', env: async () => ({ env: {}, drop: async () => {} }) });
  if (postgres && only !== 'pglite') {
    backends.push({
      name: 'PostgreSQL server and Redis',
      env: async () => {
        const db = await createTestDatabase(postgres);
        return { env: { DATABASE_URL: db.url, ...(redis ? { REDIS_URL: redis } : {}) }, drop: db.drop };
      },
    });
  }
  return backends;
}
