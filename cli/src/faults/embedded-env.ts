/**
 * The environment of an `earshot` child on an embedded data folder in the fault tests: no
 * PostgreSQL server or Redis the test process may have been given, one job at a time, warnings only.
 */
export function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    DEMO_IMPORT: 'false',
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: '1',
  };
  delete env.REDIS_URL;
  delete env.DATABASE_URL;
  return env;
}
