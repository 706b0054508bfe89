// Test helpers of @earshot/common, imported as `@earshot/common/testing`; never re-exported from the
// production index.ts. `doubling-worker.ts` is a worker-thread script started by path, not exported.

export { processAlive } from './process-alive.ts';
export { testService } from './services.ts';
