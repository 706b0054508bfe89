import { describe, expect, it } from 'vitest';
import type { SoundJson } from './schemas.ts';
import { readableSounds, soundsPage } from './sound-presenter.ts';

const base = { origin: 'http://api.test', path: '/apiv2/search/text/', query: { query: 'rain' } };
const sound = (id: number) => ({ id }) as SoundJson;

describe('pages of presented sounds', () => {
  it('leave out the hits whose sound could not be read, and count them out too', () => {
    const page = soundsPage(base, 1, 2, 3, [null, sound(7)]);
    expect(page.results).toEqual([{ id: 7 }]);
    expect(page.count).toBe(2);
    // Two sounds left at two a page: no page 2 any more.
    expect(page.next).toBeNull();
    expect(soundsPage(base, 1, 2, 1, [null])).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('keep every readable sound in order', () => {
    const page = soundsPage(base, 1, 2, 5, [sound(1), sound(2)]);
    expect(page.results.map((s) => s.id)).toEqual([1, 2]);
    expect(page.count).toBe(5);
    expect(page.next).toBe('http://api.test/apiv2/search/text/?query=rain&page=2');
    expect(readableSounds([sound(3), null, sound(4)]).map((s) => s.id)).toEqual([3, 4]);
  });
});
