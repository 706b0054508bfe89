import { countSoundsByProcessingState, type Db } from '@earshot/catalogue';

/**
 * Sounds by processing state for dashboards (/metrics): one grouped count, reused for a few
 * seconds so that frequent scrapes by several scrapers cost one statement per interval.
 */
export class ProcessingCounts {
  private last: { at: number; counts: Promise<Record<string, number>> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  byState(): Promise<Record<string, number>> {
    const at = this.now();
    if (!this.last || at - this.last.at >= this.maxAgeMs) {
      const counts = countSoundsByProcessingState(this.db);
      // A failed count is not kept: the next scrape asks again.
      counts.catch(() => {
        if (this.last?.counts === counts) this.last = undefined;
      });
      this.last = { at, counts };
    }
    return this.last.counts;
  }
}
