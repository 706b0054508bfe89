import { type Db, pruneUserEvents, pruneWebhookDeliveries } from '@earshot/catalogue';

/** How long the events and the delivery log are kept (EVENTS_RETENTION_DAYS, WEBHOOK_LOG_RETENTION_DAYS). */
export interface EventRetention {
  eventsDays: number;
  deliveriesDays: number;
}

const DAY_MS = 86_400_000;

/**
 * The events' upkeep, run by the workers' scheduled maintenance: removes the events older than
 * `eventsDays` that every switched-on webhook of their user has delivered (a webhook that keeps
 * failing is switched off within WEBHOOK_DISABLE_AFTER_HOURS, so nothing is held for ever), and the
 * delivery attempts older than `deliveriesDays`. An event stream resumes within `eventsDays`.
 */
export async function pruneEvents(
  db: Db,
  retention: EventRetention,
  now = new Date(),
): Promise<{ events: number; deliveries: number }> {
  const events = await pruneUserEvents(db, new Date(now.getTime() - retention.eventsDays * DAY_MS));
  const deliveries = await pruneWebhookDeliveries(
    db,
    new Date(now.getTime() - retention.deliveriesDays * DAY_MS),
  );
  return { events, deliveries };
}
