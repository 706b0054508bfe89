import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { type BuildAppDepsOptions, buildAppDeps, type WiredAppDeps } from '../../src/build-deps.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { type Seeded, seedCatalogue } from './seed.ts';

export interface TestServer extends RunningServer {
  seeded: Seeded;
  catalogue: Catalogue;
  deps: WiredAppDeps;
  dataDir: string;
  stop: () => Promise<void>;
}

/**
 * A real server on an embedded catalogue in a temporary folder, seeded with processed sounds.
 * `now` is the clock OAuth2 expiry is decided by; `rateLimits` gives the rate limiter a clock the
 * test moves (counters in Redis when env has REDIS_URL). `log` receives every log line (level info)
 * for tests of what is logged; without it the server logs nothing. `queue` serves the upload routes.
 * On a shared Redis each server counts under keys of its own, so one test's rate limits and sign-in
 * failures (a fuzz suite's hundreds) never throttle another's.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: Pick<BuildAppDepsOptions, 'now' | 'rateLimits' | 'queue'> & { log?: (line: string) => void } = {},
): Promise<TestServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-api-test-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const log = options.log;
  const logger = log
    ? createLogger('info', 'earshot', { write: (line: string) => log(line) })
    : createLogger('silent');
  const catalogue = await openCatalogue({ config, logger, role: 'server', description: 'api test' });
  const seeded = await seedCatalogue(catalogue, dataDir);
  const namespace = `earshot:test:${randomBytes(6).toString('hex')}:`;
  const deps = await buildAppDeps({
    config,
    logger,
    catalogue,
    version: 'test',
    similarityRefreshMs: 0,
    now: options.now,
    rateLimits: { keyPrefix: `${namespace}rl`, ...options.rateLimits },
    signInKeyPrefix: namespace,
    queue: options.queue,
  });
  // A test's view of the database (statements under way, locks) is its own only once the search
  // index has stopped reading the whole catalogue to start.
  await deps.searchIndexStarted();
  const server = await startServer(deps);
  return {
    ...server,
    seeded,
    catalogue,
    deps,
    dataDir,
    stop: async () => {
      await server.close();
      await deps.dispose();
      await catalogue.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
