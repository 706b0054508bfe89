import type { Neighbour } from '@earshot/core';

/**
 * The unfiltered k nearest neighbours of a sound, kept until the similarity state changes (its
 * generation): the graph search is most of a similar-sounds request's CPU (about 40% in the
 * profile), and popular sounds are asked for again and again. Keyed by space, sound and k, so a
 * cached answer is exactly what the search would return now.
 */
export class NeighbourCache {
  private readonly entries = new Map<string, Neighbour[]>();
  private generation = -1;

  constructor(private readonly maxEntries = 10_000) {}

  nearest(
    generation: number,
    space: string,
    soundId: number,
    k: number,
    search: () => Neighbour[],
  ): Neighbour[] {
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
    const key = `${space} ${soundId} ${k}`;
    const hit = this.entries.get(key);
    if (hit) return hit;
    const found = search();
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, found);
    return found;
  }
}
