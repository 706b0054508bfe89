/** Polls until `check` returns a truthy value or the time is up; resolves with that value. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 30_000, intervalMs = 50, what = 'condition' } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A queue prefix no other test run uses, so suites running side by side never share jobs. */
export function uniquePrefix(label: string): string {
  return `earshot-test-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Deletes every key of a test queue (the pipeline's unless named), so test runs leave Redis as they found it. */
export async function dropQueue(redisUrl: string, prefix: string, name?: string): Promise<void> {
  const { Queue } = await import('bullmq');
  const { PIPELINE_QUEUE } = await import('../runners/bullmq.ts');
  const queue = new Queue(name ?? PIPELINE_QUEUE, { connection: { url: redisUrl }, prefix });
  await queue.obliterate({ force: true });
  await queue.close();
}
