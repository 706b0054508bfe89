// The rehearsal's client side: a paced mix of what the API's users send, through the balancer,
// every request recorded (when it started and ended, how it ended) so that errors can be set
// against the moments hosts were killed.

import { uploadForm } from '../upload-sources.ts';

export type RequestKind =
  | 'sound instance'
  | 'text search'
  | 'similar sounds'
  | 'sound analysis'
  | 'rating'
  | 'comment'
  | 'upload';

export interface RequestRecord {
  kind: RequestKind;
  startedAt: number;
  endedAt: number;
  /** The HTTP status, or 0 when no answer came (connection refused, reset, timeout). */
  status: number;
  /** Why no answer came (the error's code or name). */
  failure?: string;
}

export interface LoadCredentials {
  /** An unlimited-level API key for the reads. */
  apiKey: string;
  /** Bearer tokens (OAuth2, write scope) of the users who upload, rate and comment. */
  bearer: string;
}

export interface MixedLoadOptions {
  origin: string;
  credentials: LoadCredentials;
  /** Requests per second over all reads and social writes (uploads come on their own clock). */
  rate: number;
  /** Seconds between uploads. */
  uploadEveryS: number;
  readPaths: { kind: RequestKind; paths: string[] }[];
  sounds: number;
  workDir: string;
  /** Files to upload (benchmarks/src/upload-sources.ts), a few bytes changed each time. */
  uploads: string[];
}

/** The read shares; ratings and comments take the rest (0.08). */
const READ_MIX: { kind: RequestKind; share: number }[] = [
  { kind: 'sound instance', share: 0.5 },
  { kind: 'text search', share: 0.25 },
  { kind: 'similar sounds', share: 0.12 },
  { kind: 'sound analysis', share: 0.05 },
];

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_IN_FLIGHT = 64;

export class MixedLoad {
  readonly records: RequestRecord[] = [];
  /** Sound ids of uploads the API accepted (201). */
  readonly accepted: number[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private skipped = 0;
  private uploads = 0;
  private sources: string[] = [];
  private readonly rated = new Set<number>();
  private seq = 0;

  constructor(private readonly options: MixedLoadOptions) {}

  start(): void {
    this.sources = this.options.uploads;
    if (this.sources.length === 0) throw new Error('no fixture fits as an upload (npx earshot fixtures)');
    // Open loop: requests arrive on a clock, whether or not earlier ones were answered (clients are
    // independent people), so a stall shows as requests waiting, not as requests never sent.
    this.timers.push(this.every(1000 / this.options.rate, () => this.oneRequest()));
    this.timers.push(this.every(this.options.uploadEveryS * 1000, () => this.upload()));
  }

  /** `n` uploads at once, besides the paced ones (to make every worker busy). */
  uploadNow(n: number): void {
    for (let i = 0; i < n; i++) this.track(this.upload());
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await Promise.all(this.inFlight);
  }

  /** Requests not sent because MAX_IN_FLIGHT were already waiting (the service saturated). */
  get dropped(): number {
    return this.skipped;
  }

  private every(ms: number, step: () => Promise<void>): NodeJS.Timeout {
    return setInterval(() => {
      if (this.inFlight.size >= MAX_IN_FLIGHT) {
        this.skipped++;
        return;
      }
      this.track(step());
    }, ms);
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    p.finally(() => this.inFlight.delete(p));
  }

  private pick(): RequestKind {
    let x = Math.random();
    for (const { kind, share } of READ_MIX) {
      if (x < share) return kind;
      x -= share;
    }
    return x < 0.04 ? 'rating' : 'comment';
  }

  private async oneRequest(): Promise<void> {
    const kind = this.pick();
    const { origin, credentials } = this.options;
    if (kind === 'rating' || kind === 'comment') {
      const id = this.freshSoundId(kind === 'rating');
      const query =
        kind === 'rating'
          ? `rating=${1 + (id % 5)}`
          : `comment=${encodeURIComponent(`rehearsal comment ${++this.seq}`)}`;
      await this.send(
        kind,
        `${origin}/apiv2/sounds/${id}/${kind === 'rating' ? 'rate' : 'comment'}/?${query}`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${credentials.bearer}` },
        },
      );
      return;
    }
    const paths = this.options.readPaths.find((p) => p.kind === kind)?.paths ?? [];
    const p = paths[Math.floor(Math.random() * paths.length)];
    await this.send(kind, `${origin}${p}`, { headers: { Authorization: `Token ${credentials.apiKey}` } });
  }

  /** A sound this user has not rated yet (ratings are once per user and sound). */
  private freshSoundId(forRating: boolean): number {
    for (;;) {
      const id = 1 + Math.floor(Math.random() * this.options.sounds);
      if (!forRating || !this.rated.has(id)) {
        if (forRating) this.rated.add(id);
        return id;
      }
    }
  }

  private async upload(): Promise<void> {
    const n = ++this.uploads;
    const source = this.sources[n % this.sources.length];
    const { form, remove } = await uploadForm(source, n, this.options.workDir, 'Cluster rehearsal');
    try {
      const res = await this.send('upload', `${this.options.origin}/apiv2/sounds/upload/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${this.options.credentials.bearer}` },
        body: form,
      });
      if (res && (res.status === 201 || res.status === 200)) {
        const id = (res.body as { id?: number }).id;
        if (typeof id === 'number') this.accepted.push(id);
      }
    } finally {
      remove();
    }
  }

  private async send(
    kind: RequestKind,
    url: string,
    init: RequestInit,
  ): Promise<{ status: number; body: unknown } | undefined> {
    const startedAt = Date.now();
    let status = 0;
    let body: unknown;
    let failure: string | undefined;
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      status = res.status;
      const text = await res.text();
      body = kind === 'upload' && text ? JSON.parse(text) : undefined;
    } catch (err) {
      // No answer (or half of one): recorded as status 0.
      status = 0;
      const e = err as Error & { cause?: { code?: string } };
      failure = e.cause?.code ?? e.name;
    }
    this.records.push({ kind, startedAt, endedAt: Date.now(), status, ...(failure ? { failure } : {}) });
    return status ? { status, body } : undefined;
  }
}

/** A failed request: no answer, or a server error. */
export function isError(record: RequestRecord): boolean {
  return record.status === 0 || record.status >= 500;
}

/** Answers (any status) per window of `windowS` seconds from `from` to `to`: stalls show as low windows. */
export function answersPerWindow(
  records: RequestRecord[],
  from: number,
  to: number,
  windowS: number,
): number[] {
  const windows = Array.from({ length: Math.max(1, Math.floor((to - from) / (windowS * 1000))) }, () => 0);
  for (const r of records) {
    const i = Math.floor((r.endedAt - from) / (windowS * 1000));
    if (r.status !== 0 && i >= 0 && i < windows.length) windows[i]++;
  }
  return windows;
}
