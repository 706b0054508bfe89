import type {
  SoundRecord as CatalogueSound,
  SoundChangeKind,
  SoundChangePosition,
  SoundRecordColumn,
} from '@earshot/catalogue';
import type { DescriptorReader, SoundChangesReader } from './ports.ts';
import type { SoundReads, SoundRecord } from './records.ts';
import { asksBeyondRow, SoundRecords } from './sound-records.ts';

/** One sound's latest change: its record when it is public now, none for a tombstone. */
export interface SoundChangeRecord {
  id: number;
  kind: SoundChangeKind;
  changedAt: Date;
  sound?: SoundRecord;
}

/** A page of the changes feed and where the next one starts. */
export interface ChangesPage {
  changes: SoundChangeRecord[];
  /** After the last change of this page (the position asked when the page is empty). */
  position: SoundChangePosition;
  /** The page is full: more changes may follow at once. */
  more: boolean;
}

/**
 * The changes feed (`/apiv2/changes/`): sounds created, edited, approved or removed after a
 * position, in the order their changes committed. A harvester starts at the beginning (every
 * public sound is a change there), then follows from the position it reached.
 */
export class ChangesService {
  private readonly records: SoundRecords;

  constructor(
    private readonly reader: SoundChangesReader,
    descriptors: DescriptorReader,
  ) {
    this.records = new SoundRecords(reader, descriptors);
  }

  /**
   * The changes after `position`, at most `limit`, each shown sound read with `columns` of its row
   * (what the answer's fields need; the others are left out of the read) and what `reads` asks.
   */
  async after(
    position: SoundChangePosition,
    limit: number,
    columns: Iterable<SoundRecordColumn>,
    reads: SoundReads = {},
  ): Promise<ChangesPage> {
    const changes = await this.reader.after(position, limit, columns);
    const rows: CatalogueSound[] = [];
    for (const change of changes) if (change.kind !== 'removed' && change.sound) rows.push(change.sound);
    // One record per row, in their order: every hit comes with its row, so none is left out.
    const records = asksBeyondRow(reads)
      ? await this.records.read(
          rows.map((row) => ({ id: row.id })),
          reads,
          rows,
        )
      : rows.map((sound) => ({ sound }));
    let next = 0;
    return {
      changes: changes.map((change) => {
        const sound = change.kind !== 'removed' && change.sound ? records[next++] : undefined;
        // Not readable any more: it was hidden or deleted after it changed, and that change
        // follows later in the feed. Until then it is shown as what it has become.
        if (!sound) return { id: change.soundId, kind: 'removed', changedAt: change.changedAt };
        return { id: change.soundId, kind: change.kind, changedAt: change.changedAt, sound };
      }),
      position: changes.length ? changes[changes.length - 1].position : position,
      more: changes.length === limit,
    };
  }
}
