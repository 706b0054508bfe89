/**
 * The pipeline as the use cases see it. Declared here and implemented by `@earshot/workers`
 * (its `Pipeline`), so that the API, the CLI and the import reach the pipeline without importing
 * the workers. The catalogue is written first: a sound handed to `submit` is already `Queued` there.
 */
export interface ProcessingQueue {
  /** Queues the first stage of a sound the catalogue records as Queued (new, or reprocessed). */
  submit(soundId: number): Promise<void>;
  /** True while a job of the sound waits or runs (processing it again then would run it twice). */
  isBusy(soundId: number): Promise<boolean>;
}
