import type { ProcessingQueue } from '../processing/processing-queue.ts';

/**
 * The `ProcessingQueue` port's other side, in memory: records what was submitted, and counts the
 * sounds in `busy` as waiting or running. Lets the use cases be tested without Redis or workers.
 */
export function recordingQueue(busy = new Set<number>()) {
  const submitted: number[] = [];
  const queue: ProcessingQueue = {
    submit: async (id) => {
      submitted.push(id);
    },
    isBusy: async (id) => busy.has(id),
  };
  return { queue, submitted, busy };
}
