import { decodeChangeCursor, encodeChangeCursor, FEED_START } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import { z } from 'zod';
import type { ChangesPage, ChangesService } from '../../application/changes.ts';
import type { Variant } from '../../application/records.ts';
import { fieldsParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import { encodeQuery, type LinkBase } from '../presenters/pagination.ts';
import { soundSchema } from '../presenters/schemas.ts';
import { type SoundContext, soundColumns } from '../presenters/sound.ts';
import { selectFields, soundReads } from '../presenters/sound-fields.ts';
import { presentSound } from '../presenters/sound-presenter.ts';
import { v2Timestamp } from '../presenters/timestamps.ts';
import { linkBase } from './list-request.ts';

export const CHANGES_DEFAULT_PAGE_SIZE = 100;
export const CHANGES_MAX_PAGE_SIZE = 5000;

const changesQuery = z.object({
  since: z
    .string()
    .optional()
    .describe('the `cursor` of an earlier answer; absent: from the beginning (every public sound)'),
  page_size: z
    .string()
    .optional()
    .describe(`changes per answer (default ${CHANGES_DEFAULT_PAGE_SIZE}, maximum ${CHANGES_MAX_PAGE_SIZE})`),
  fields: fieldsParam,
  descriptors: z.string().optional().describe('variant A: dotted descriptor names for the `analysis` field'),
  normalized: z.string().optional().describe('variant A: 1 returns normalized descriptor values'),
});

const changeSchema = z.object({
  id: z.number().int().describe('the sound'),
  change: z
    .enum(['created', 'edited', 'approved', 'removed'])
    .describe("the sound's latest change: removed is a tombstone (deleted, hidden or rejected)"),
  changed: z.string().describe('when the change was made (UTC)'),
  sound: soundSchema.nullable().describe('the sound as it is now, with the fields asked; null when removed'),
});

const changesSchema = z.object({
  changes: z.array(changeSchema),
  cursor: z.string().describe('where the next answer starts: pass it as `since`'),
  next: z.string().describe('this resource with `since` set to `cursor`'),
  more: z.boolean().describe('this answer is full: more changes may follow at once'),
});

/** The changes feed: harvest the public catalogue, then follow it (docs/api.md, "Beyond the contract"). */
export function changesRoutes(changes: ChangesService, variant: Variant): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/changes/',
      operationId: 'changes',
      summary:
        'earshot: sounds created, edited, approved or removed after a cursor, in the order the changes committed; each sound once, at its latest change',
      tags: ['sounds'],
      auth: 'read',
      query: changesQuery,
      response: changesSchema,
      handler: async (input) => {
        const { query } = input;
        const position = query.since ? decodeChangeCursor(query.since, 'since') : FEED_START;
        const limit = readChangesPageSize(query.page_size);
        const selection = selectFields(query.fields, { variant, kind: 'list', allowScore: false });
        const reads = soundReads(selection, {
          descriptors: query.descriptors,
          normalized: query.normalized === '1',
        });
        const page = await changes.after(position, limit, soundColumns(selection), reads);
        return presentChanges(linkBase(input), page, { origin: input.origin, variant, selection });
      },
    }),
  ];
}

function readChangesPageSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return CHANGES_DEFAULT_PAGE_SIZE;
  const n = /^\d{1,7}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(n >= 1 && n <= CHANGES_MAX_PAGE_SIZE))
    throw new ValidationError(`page_size: an integer from 1 to ${CHANGES_MAX_PAGE_SIZE}`);
  return n;
}

function presentChanges(
  links: LinkBase,
  page: ChangesPage,
  ctx: SoundContext,
): z.input<typeof changesSchema> {
  const cursor = encodeChangeCursor(page.position);
  const query = Object.entries({ ...links.query, since: cursor });
  // The changes one transaction committed share their time: written once for a run of them.
  let time = Number.NaN;
  let changed = '';
  return {
    changes: page.changes.map((change) => {
      if (change.changedAt.getTime() !== time) {
        time = change.changedAt.getTime();
        changed = v2Timestamp(change.changedAt);
      }
      return {
        id: change.id,
        change: change.kind,
        changed,
        sound: change.sound ? presentSound(change.sound, ctx) : null,
      };
    }),
    cursor,
    next: `${links.origin}${links.path}${encodeQuery(query)}`,
    more: page.more,
  };
}
