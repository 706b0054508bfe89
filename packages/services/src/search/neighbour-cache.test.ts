import { SimilarityIndex } from '@earshot/core';
import { describe, expect, it } from 'vitest';
import { NeighbourCache } from './neighbour-cache.ts';

/** A small real index (100-d, the default space) with deterministic vectors. */
function index(): SimilarityIndex {
  const idx = SimilarityIndex.create({ capacity: 64 });
  for (let id = 1; id <= 40; id++) {
    idx.upsert(
      id,
      Array.from({ length: 100 }, (_, j) => Math.sin(id * 0.37 + j * 0.11) + (j === id ? 1 : 0)),
    );
  }
  return idx;
}

describe('NeighbourCache', () => {
  it('answers a repeated (space, sound, k) from memory with what the search returns', () => {
    const idx = index();
    const cache = new NeighbourCache();
    let searches = 0;
    const run = (id: number, k: number) =>
      cache.nearest(1, idx.space.name, id, k, () => {
        searches++;
        return idx.nearestToSound(id, { k });
      });
    const first = run(5, 10);
    expect(first).toEqual(idx.nearestToSound(5, { k: 10 }));
    expect(first.map((n) => n.id)).not.toContain(5);
    expect(run(5, 10)).toBe(first);
    expect(searches).toBe(1);
    expect(run(5, 3)).toEqual(idx.nearestToSound(5, { k: 3 })); // another k is another search
    expect(run(6, 10)).toEqual(idx.nearestToSound(6, { k: 10 }));
    expect(searches).toBe(3);
  });

  it('forgets everything when the generation changes, and keeps at most maxEntries', () => {
    const idx = index();
    const cache = new NeighbourCache(2);
    let searches = 0;
    const run = (generation: number, id: number) =>
      cache.nearest(generation, idx.space.name, id, 5, () => {
        searches++;
        return idx.nearestToSound(id, { k: 5 });
      });
    const victim = run(1, 1)[0].id;
    idx.remove(victim);
    // Same generation: the kept answer (the state says nothing changed).
    expect(run(1, 1).map((n) => n.id)).toContain(victim);
    expect(searches).toBe(1);
    const after = run(2, 1);
    expect(searches).toBe(2);
    expect(after.map((n) => n.id)).not.toContain(victim);
    run(2, 3);
    run(2, 4); // evicts sound 1's entry
    run(2, 1);
    expect(searches).toBe(5);
  });
});
