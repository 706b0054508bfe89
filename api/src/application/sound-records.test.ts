import { soundRowFixture } from '@earshot/catalogue/testing';
import { describe, expect, it } from 'vitest';
import { memoryCatalogue, memoryDescriptors } from '../../test/support/ports.ts';
import { SoundRecords } from './sound-records.ts';

function row(id: number) {
  return soundRowFixture({ id, name: `sound ${id}` });
}

describe('sound records', () => {
  it('hold the row the catalogue answered, untouched, with the hit’s score and pack beside it', async () => {
    const rows = [row(1), row(2)];
    const records = new SoundRecords(memoryCatalogue(rows), memoryDescriptors());
    const [first, second] = await records.read([
      { id: 1, score: 0.9 },
      { id: 2, score: 0.5, nFromSamePack: 3, packGrouping: '7' },
    ]);
    // The rows are shared between requests (the record cache): a record must neither copy nor
    // change them, whatever the request adds.
    expect(first.sound).toBe(rows[0]);
    expect(second.sound).toBe(rows[1]);
    expect(first.score).toBe(0.9);
    expect(second).toMatchObject({ score: 0.5, samePack: { count: 3, grouping: '7' } });
    expect(rows[0]).not.toHaveProperty('score');
    expect(rows[1]).not.toHaveProperty('samePack');
  });

  it('leave out a hit the catalogue no longer shows, in the page and its count', async () => {
    const records = new SoundRecords(memoryCatalogue([row(1), row(3)]), memoryDescriptors());
    const page = await records.page({ count: 10, items: [{ id: 1 }, { id: 2 }, { id: 3 }] }, 1, 3, {});
    expect(page.items.map((r) => r.sound.id)).toEqual([1, 3]);
    expect(page.count).toBe(9);
  });
});
