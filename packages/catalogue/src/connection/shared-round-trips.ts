/**
 * Wraps a round trip to the database so that concurrent callers share it, yet each caller gets a
 * round trip that started after its call (one already under way may have started before the
 * caller's own writes committed). At most one runs and one waits, shared by everyone who arrives
 * meanwhile: under load this is one small query per round trip, not one per caller.
 */
export function sharedRoundTrips<T>(run: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const next = (): Promise<T> => {
    if (!running) {
      const trip = run().finally(() => {
        if (running === trip) running = undefined;
      });
      running = trip;
      return trip;
    }
    queued ??= running
      .catch(() => {})
      .then(() => {
        queued = undefined;
        return next();
      });
    return queued;
  };
  return next;
}
