import type { Db } from './shared.ts';

/** How many sounds are in each processing state (every state present in the catalogue). */
export async function countSoundsByProcessingState(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('sounds')
    .select(['processing_state', (eb) => eb.fn.countAll<string>().as('n')])
    .groupBy('processing_state')
    .execute();
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.processing_state] = Number(row.n);
  return counts;
}
