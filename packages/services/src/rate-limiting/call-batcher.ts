/** Entries sent by one call at most (a RESERVE entry holds three keys: 1,500 keys). */
export const MAX_BATCH = 500;

interface Waiting<E, A> {
  entries: readonly E[];
  resolve(answers: A[]): void;
  reject(error: unknown): void;
}

/**
 * Groups the entries of concurrent callers into one call: while a call is in flight, what arrives
 * waits for it to return and then goes together in the next one (a full batch goes at once). With
 * nothing in flight, entries go at the end of the current tick (a microtask, no timer), joined only
 * by those arriving in the same tick. Each caller gets the answers to its own entries, in order; a
 * failed call fails every caller of its batch.
 */
export function callBatcher<E, A>(
  call: (entries: E[]) => Promise<A[]>,
  maxBatch = MAX_BATCH,
): (entries: readonly E[]) => Promise<A[]> {
  let queue: Waiting<E, A>[] = [];
  let queued = 0;
  let inFlight = 0;
  let scheduled = false;

  function send(batch: Waiting<E, A>[]): void {
    inFlight++;
    call(batch.flatMap((w) => w.entries)).then(
      (answers) => {
        let at = 0;
        for (const w of batch) {
          w.resolve(answers.slice(at, at + w.entries.length));
          at += w.entries.length;
        }
        settled();
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error);
        settled();
      },
    );
  }

  function take(): Waiting<E, A>[] {
    const batch = queue;
    queue = [];
    queued = 0;
    return batch;
  }

  function settled(): void {
    inFlight--;
    if (inFlight === 0 && queue.length > 0) send(take());
  }

  return (entries) =>
    new Promise<A[]>((resolve, reject) => {
      queue.push({ entries, resolve, reject });
      queued += entries.length;
      if (queued >= maxBatch) {
        send(take());
      } else if (inFlight === 0 && !scheduled) {
        scheduled = true;
        queueMicrotask(() => {
          scheduled = false;
          if (inFlight === 0 && queue.length > 0) send(take());
        });
      }
    });
}
