import { afterAll, beforeAll } from 'vitest';
import type { FuzzBackend } from '../fuzz/backends.ts';
import { startTestServer, type TestServer } from './server.ts';

/**
 * A seeded test server on one backend (fuzzBackends: the embedded PGlite, the PostgreSQL server
 * with Redis) for the enclosing `describe`; `server` is read inside tests.
 */
export function useTestServerOn(backend: FuzzBackend): { readonly server: TestServer } {
  let server: TestServer | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const prepared = await backend.env();
    drop = prepared.drop;
    server = await startTestServer(prepared.env);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });
  return {
    get server() {
      if (!server) throw new Error('the test server is not started yet');
      return server;
    },
  };
}
