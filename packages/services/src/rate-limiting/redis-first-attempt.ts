import type { Redis } from 'ioredis';
import { rateScripts } from './redis-scripts.ts';
import type { WindowCounts, WindowSpec, WindowStore } from './store.ts';

/**
 * The `first-attempt` windows' counters in Redis: one key per window and key, `<prefix>:<key>`,
 * expiring a window after its first count; every count is one script call (a throttle on people's
 * attempts is far from the API's request rates, so nothing is counted ahead). Redis's clock ends
 * the windows: `indices` is not read.
 */
export function redisFirstAttempt(redis: Redis, windows: readonly WindowSpec[]): Required<WindowStore> {
  const scripts = rateScripts(redis);
  const counters = (key: string) => windows.map((w) => `${w.prefix}:${key}`);
  return {
    async add(key): Promise<WindowCounts[]> {
      const names = counters(key);
      const answers = await scripts.hit(
        names.map((name, w) => ({ key: name, windowMs: windows[w].windowMs })),
      );
      return answers.map((a) => ({ current: a.count, previous: 0, endsInMs: a.msLeft }));
    },
    async remove(key) {
      await scripts.release(counters(key).map((name) => ({ key: name, count: 1 })));
    },
    async reset(key) {
      await redis.del(...counters(key));
    },
    close: async () => {},
  };
}
