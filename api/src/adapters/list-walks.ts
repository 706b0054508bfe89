import { type Db, type ListWalkLimits, readListWalk, startListWalk } from '@earshot/catalogue';
import type { Hit, ListWalkStore } from '../application/ports.ts';

/**
 * How long an idle walk is kept (LIST_WALK_IDLE_MINUTES overrides it), and how many ids all walks
 * keep together (docs/api.md "Cursor paging").
 */
export const LIST_WALK_LIMITS: ListWalkLimits = { idleSeconds: 3600, maxStoredIds: 20_000_000 };

/**
 * The walks' frozen lists in the catalogue, where every API process finds them. A hit's details
 * (all but its id) are stored only when some hit of the list has any.
 */
export function listWalkStore(db: Db, limits: ListWalkLimits = LIST_WALK_LIMITS): ListWalkStore {
  return {
    start: (listKey, hits) => {
      const detailed = hits.some((hit) => Object.keys(hit).length > 1);
      const details = detailed ? hits.map(({ id: _, ...rest }) => rest) : undefined;
      return startListWalk(db, listKey, { ids: hits.map((hit) => hit.id), details }, limits);
    },
    read: async (walkId, listKey, window) => {
      const slice = await readListWalk(db, walkId, listKey, window, limits);
      if (typeof slice === 'string') return slice;
      const details = slice.details as Array<Omit<Hit, 'id'>> | undefined;
      return { total: slice.total, hits: slice.ids.map((id, i) => ({ ...details?.[i], id })) };
    },
  };
}
