import type { UserEvent } from '@earshot/catalogue';

/** An event as webhooks and the event stream carry it (docs/api.md, "Events"). */
export interface EventBody {
  /** The event's id: a receiver that has seen it drops a repeated delivery. */
  id: string;
  type: UserEvent['kind'];
  created: string;
  sound_id: number;
  /** What the change says: `sound_name` always; the comment, rating, user, error or reason. */
  data: Record<string, unknown>;
}

export function eventBody(event: UserEvent): EventBody {
  return {
    id: event.id,
    type: event.kind,
    created: event.created.toISOString(),
    sound_id: event.soundId,
    data: event.data,
  };
}
