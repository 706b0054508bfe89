import {
  isBeforeEvent,
  type UserEvent,
  type UserEventKind,
  type UserEventPosition,
} from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import type { UserEventsReader } from './ports.ts';

/**
 * A stream resumed from before events the retention removed: the latest event it missed, and the
 * oldest still kept after its position (where it goes on; null when none is kept yet).
 */
export interface MissedEvents {
  removedThrough: UserEventPosition;
  oldestKept: UserEventPosition | null;
}

/** One follower of one user's events. */
interface Follower {
  userId: number;
  /** The last event handed to it. */
  last: UserEventPosition;
  /** Live events that came while it was still reading its backlog. */
  held: UserEvent[] | undefined;
  onEvents: (events: UserEvent[]) => void;
}

const BACKLOG_READ = 500;
const LIVE_READ = 1000;

/**
 * The event streams of one API process read the outbox once for all of them: one poll every
 * `pollMs` while anyone follows (not one per open stream), its events handed to the followers of
 * their users. A follower first reads its own backlog from its position and holds the live events
 * meanwhile; each event reaches it once, in commit order.
 */
export class EventHub {
  private readonly followers = new Set<Follower>();
  private position: Promise<UserEventPosition> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly reader: UserEventsReader,
    private readonly pollMs = 250,
  ) {}

  /** Where a follower without a position starts: after the latest committed event. */
  latest(): Promise<UserEventPosition> {
    return this.reader.latest();
  }

  /**
   * Checks where a stream of `userId`'s events of `kinds` resumes: a position this server never
   * wrote (another server's id, or one of a database restored since) is a 400 naming `parameter`;
   * when the retention removed some of those events after it, the stream missed them and is told
   * (the answer), rather than going on as if nothing were lost.
   */
  async resume(
    userId: number,
    after: UserEventPosition,
    kinds: readonly UserEventKind[],
    parameter: string,
  ): Promise<MissedEvents | undefined> {
    const found = await this.reader.resume({ userId, after, kinds });
    if (found.unknown)
      throw new ValidationError(
        `${parameter}: no event with this id was written here (an id of another server, or of a database restored since?); connect again without it to follow from now, after reading afresh what you keep`,
      );
    if (found.removedThrough === null) return undefined;
    return { removedThrough: found.removedThrough, oldestKept: found.oldestKept };
  }

  /** Follows `userId`'s events after `after` until the returned function is called. */
  async follow(
    userId: number,
    after: UserEventPosition,
    onEvents: (events: UserEvent[]) => void,
  ): Promise<() => void> {
    const follower: Follower = { userId, last: after, held: [], onEvents };
    this.followers.add(follower);
    const stop = () => {
      this.followers.delete(follower);
      if (this.followers.size === 0) this.stopPolling();
    };
    try {
      // The live poll's start is fixed before the backlog is read, so the two leave no gap.
      this.position ??= this.reader.latest();
      await this.position;
      if (!this.timer) {
        this.timer = setInterval(() => void this.poll(), this.pollMs);
        this.timer.unref();
      }
      for (;;) {
        const events = await this.reader.after({ after: follower.last, limit: BACKLOG_READ, userId });
        if (events.length === 0) break;
        this.hand(follower, events);
        if (events.length < BACKLOG_READ) break;
      }
      const held = follower.held ?? [];
      follower.held = undefined;
      this.hand(follower, held);
    } catch (err) {
      stop();
      throw err;
    }
    return stop;
  }

  private hand(follower: Follower, events: UserEvent[]): void {
    const fresh = events.filter((e) => isBeforeEvent(follower.last, e.position));
    if (fresh.length === 0 || !this.followers.has(follower)) return;
    follower.last = fresh[fresh.length - 1].position;
    follower.onEvents(fresh);
  }

  private async poll(): Promise<void> {
    if (this.polling || !this.position) return;
    this.polling = true;
    try {
      for (;;) {
        const from = await this.position;
        const events = await this.reader.after({ after: from, limit: LIVE_READ });
        if (events.length === 0 || !this.position) return;
        this.position = Promise.resolve(events[events.length - 1].position);
        for (const follower of this.followers) {
          const theirs = events.filter((e) => e.userId === follower.userId);
          if (theirs.length === 0) continue;
          if (follower.held) follower.held.push(...theirs);
          else this.hand(follower, theirs);
        }
        if (events.length < LIVE_READ) return;
      }
    } catch {
      // The catalogue is unavailable for a moment: the next poll reads from the same position.
    } finally {
      this.polling = false;
    }
  }

  private stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.position = undefined;
  }

  /** Ends every follow (the process is closing). */
  close(): void {
    this.followers.clear();
    this.stopPolling();
  }
}
