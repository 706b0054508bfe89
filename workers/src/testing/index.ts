// Test helpers of @earshot/workers, imported as `@earshot/workers/testing`; never re-exported from the
// production index.ts. `file-writer-worker.ts` is a worker-process script started by path, not exported.
export { type Child, startChild } from './child.ts';
export { startCliWorker } from './cli-worker.ts';
export { MEDIA_STAGE_FILES } from './media-files.ts';
export { type PipelineTestEnv, pipelineTestEnv } from './pipeline-env.ts';
export { PrivatePostgres } from './private-postgres.ts';
export { PrivateRedis } from './redis-server.ts';
export { ServerDatabase } from './server-database.ts';
export { dropQueue, uniquePrefix, waitFor } from './wait.ts';
