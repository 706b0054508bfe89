// Every API host's similarity index has every new sound within 5 s: for each upload that became
// public (processed, approved), each host is asked for the sound's similar sounds until both of its
// processes answer 200 (a sound not in the index is a 404). A host that was down counts from when it
// was ready again.

import type pg from 'pg';

interface Host {
  name: string;
  origin: string;
}

export class SimilarityWatch {
  private readonly publicAt = new Map<number, number>();
  /** `${sound}/${host}` → seconds from public (or the host's return) to both processes answering. */
  private readonly seen = new Map<string, number>();
  private readonly upSince = new Map<string, number>();
  private readonly isDown = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly db: pg.Client,
    private readonly hosts: Host[],
    private readonly apiKey: string,
    private readonly accepted: () => number[],
  ) {
    for (const h of hosts) this.upSince.set(h.name, 0);
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.tick()
        .catch(() => {})
        .finally(() => {
          this.busy = false;
        });
    }, 1000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  down(host: string): void {
    this.isDown.add(host);
  }

  up(host: string): void {
    this.isDown.delete(host);
    this.upSince.set(host, Date.now());
  }

  /** Waits (up to `ms`) until every public upload was seen on every host. */
  async settle(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      await this.tick().catch(() => {});
      if (this.missing() === 0 && this.publicAt.size >= this.accepted().length) return;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  lags(): number[] {
    return [...this.seen.values()];
  }

  /** The (sound, host) pairs seen later than `seconds`, and those never seen, one line each. */
  late(seconds: number): string[] {
    const out: string[] = [];
    for (const [key, lag] of this.seen)
      if (lag > seconds) out.push(`similarity: sound/host ${key} after ${lag.toFixed(1)} s`);
    for (const id of this.publicAt.keys()) {
      for (const h of this.hosts)
        if (!this.seen.has(`${id}/${h.name}`)) out.push(`similarity: sound ${id} never on ${h.name}`);
    }
    return out;
  }

  /** (sound, host) pairs of public sounds not seen yet. */
  missing(): number {
    return this.publicAt.size * this.hosts.length - this.seen.size;
  }

  private async tick(): Promise<void> {
    const ids = this.accepted().filter((id) => !this.publicAt.has(id));
    if (ids.length > 0) {
      const rows = await this.db.query<{ id: number; at: string }>(
        `select id, (extract(epoch from greatest(processing_updated, coalesce(moderated_at, processing_updated))) * 1000)::bigint::text as at
         from sounds where id = any($1::int[]) and processing_state = 'Processed' and moderation_state = 'ok'`,
        [ids],
      );
      for (const r of rows.rows) this.publicAt.set(r.id, Number(r.at));
    }
    const checks: Promise<void>[] = [];
    for (const [id, publicAt] of this.publicAt) {
      for (const host of this.hosts) {
        const key = `${id}/${host.name}`;
        if (this.seen.has(key) || this.isDown.has(host.name)) continue;
        checks.push(
          this.inIndex(host.origin, id).then((yes) => {
            if (yes) {
              const from = Math.max(publicAt, this.upSince.get(host.name) ?? 0);
              this.seen.set(key, Math.max(0, (Date.now() - from) / 1000));
            }
          }),
        );
      }
    }
    await Promise.all(checks);
  }

  /** Both processes of the host answer (two requests on fresh connections: the cluster deals them out in turn). */
  private async inIndex(origin: string, id: number): Promise<boolean> {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${origin}/apiv2/sounds/${id}/similar/?fields=id&page_size=1`, {
        headers: { Authorization: `Token ${this.apiKey}`, Connection: 'close' },
        signal: AbortSignal.timeout(5000),
      }).catch(() => undefined);
      await res?.text();
      if (res?.status !== 200) return false;
    }
    return true;
  }
}
