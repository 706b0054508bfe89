// What every entry point exports besides its own area: the ffmpeg runner and the logger interface
// its functions take, and the error classes any of them may throw. Re-exported by each subpath
// (the same bindings, so `@earshot/core` re-exporting all of them sees no conflict).
export { EarshotError, NotFoundError, ValidationError } from '@earshot/common/errors';
export type { BinaryName, ResolvedBinary } from './ffmpeg/binaries.ts';
export { FfmpegNotFoundError, FfmpegProcessError, SpawnHelperError } from './ffmpeg/errors.ts';
export {
  DEFAULT_TIMEOUT_MS,
  defaultFfmpeg,
  Ffmpeg,
  type FfmpegOptions,
  type FfmpegPaths,
  type LinkedRun,
  type RunOptions,
  type RunResult,
} from './ffmpeg/ffmpeg.ts';
export type { CoreLogger } from './logger.ts';
export { type CoreThread, WorkerThreadError } from './worker-errors.ts';
