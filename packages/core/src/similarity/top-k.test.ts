import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/similarity.ts';
import { TopK } from './top-k.ts';

describe('TopK', () => {
  it('keeps the k lowest costs of a stream, best first, ties by smaller id', () => {
    const random = seededRandom(11);
    const entries = Array.from({ length: 5000 }, (_, id) => ({ id, cost: Math.round(random() * 500) }));
    const top = new TopK(25);
    for (const e of entries) top.offer(e.id, e.cost);
    const expected = [...entries].sort((a, b) => a.cost - b.cost || a.id - b.id).slice(0, 25);
    expect(top.sorted()).toEqual(expected);
  });

  it('returns fewer when fewer were offered, and nothing for k = 0', () => {
    const top = new TopK(10);
    top.offer(3, 0.5);
    top.offer(1, 0.25);
    expect(top.sorted()).toEqual([
      { id: 1, cost: 0.25 },
      { id: 3, cost: 0.5 },
    ]);
    expect(top.threshold).toBe(Number.POSITIVE_INFINITY);
    const none = new TopK(0);
    none.offer(1, 1);
    expect(none.sorted()).toEqual([]);
  });
});
