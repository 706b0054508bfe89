/** Which of the core's worker threads failed. */
export type CoreThread = 'essentia' | 'clip-analysis' | 'similarity-build' | 'category-training';

/**
 * One of the core's worker threads exited or failed before it answered (the work it carried is
 * lost; the next call starts a new thread), or its work failed in a way that has no typed error of
 * its own: `message` says how.
 */
export class WorkerThreadError extends Error {
  constructor(
    readonly thread: CoreThread,
    message: string,
    /** The thread's exit code, when it exited. */
    readonly exitCode?: number,
  ) {
    super(message);
    this.name = 'WorkerThreadError';
  }
}
