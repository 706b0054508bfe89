import type { RateLimitLevelName } from '@earshot/catalogue';

/**
 * Which limits a route counts against: `standard` for version 2 in general, `strict` for upload,
 * describe, edit, comment, rate and bookmark (API.md "Limits"). A route declaration sets it.
 */
export type RateLimitClass = 'standard' | 'strict';

/** The requests a credential may make in each window. */
export interface WindowLimits {
  minute: number;
  day: number;
}

/** What a level allows on a class of routes: counted limits, no limit, or nothing at all. */
export type LevelPolicy = WindowLimits | 'unlimited' | 'suspended';

export type RateLimitPolicy = (level: RateLimitLevelName, cls: RateLimitClass) => LevelPolicy;

/**
 * Upstream's levels (../shared/spec/UPSTREAM-FACTS.md §7, `APIV2_*_THROTTLING_RATES_PER_LEVELS`), by name: the
 * catalogue stores the same numbers (0, 1, 2, 3, 99). `standard` is every new credential's level;
 * the others are set by an administrator (`earshot credentials level`).
 */
const LEVELS: Record<RateLimitLevelName, Record<RateLimitClass, LevelPolicy>> = {
  suspended: { standard: 'suspended', strict: 'suspended' },
  standard: { standard: { minute: 60, day: 2_000 }, strict: { minute: 30, day: 500 } },
  elevated: { standard: { minute: 300, day: 5_000 }, strict: { minute: 60, day: 1_000 } },
  high: { standard: { minute: 300, day: 15_000 }, strict: { minute: 60, day: 3_000 } },
  unlimited: { standard: 'unlimited', strict: 'unlimited' },
};

export const defaultRateLimitPolicy: RateLimitPolicy = (level, cls) => LEVELS[level][cls];
