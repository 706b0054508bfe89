// A worker host killed with a job in hand, and how long until another worker has every job it held.
// BullMQ's keys are read directly (the queue `pipeline` under the prefix `earshot`): the list of
// active jobs at the kill, then each job's `processedOn` (set again when another worker starts it)
// and `finishedOn`.

import type { Redis } from 'ioredis';

const KEY = 'earshot:pipeline';

/**
 * Makes both worker hosts busy (`burst` queues uploads; each host runs one job at a time), kills
 * one (`kill`), and resolves `takeover` with the seconds until every job active at the kill was
 * finished or started again (the survivor's own job finishes in seconds, so the dead host's job
 * decides), or null when no job was active.
 */
export async function takeoverAfterKill(
  redis: Redis,
  kill: () => void,
  burst: () => void,
): Promise<{ takeover: Promise<number | null> }> {
  burst();
  const busyBy = Date.now() + 20_000;
  while (Date.now() < busyBy && (await redis.llen(`${KEY}:active`)) < 2) {
    await new Promise((r) => setTimeout(r, 200));
  }
  const active = await redis.lrange(`${KEY}:active`, 0, -1);
  const killedAt = Date.now();
  kill();
  return { takeover: active.length === 0 ? Promise.resolve(null) : watch(redis, active, killedAt) };
}

async function watch(redis: Redis, jobs: string[], killedAt: number): Promise<number | null> {
  const open = new Set(jobs);
  let last = killedAt;
  const deadline = killedAt + 180_000;
  while (open.size > 0 && Date.now() < deadline) {
    for (const id of [...open]) {
      const [processedOn, finishedOn] = await redis.hmget(`${KEY}:${id}`, 'processedOn', 'finishedOn');
      const gone = processedOn === null && finishedOn === null;
      if (gone || finishedOn !== null || Number(processedOn) > killedAt) {
        open.delete(id);
        last = Date.now();
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return open.size > 0 ? null : (last - killedAt) / 1000;
}
