import { describe, expect, it } from 'vitest';
import {
  firstAsked,
  searchStream,
  seededRandom,
  streamShape,
  textSearches,
  uniformIds,
  zipfSampler,
} from './realistic-workload.ts';

const VOCABULARY = Array.from({ length: 400 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`);

describe('the realistic workload', () => {
  it("lists a stream's first distinct searches in the order it first asks them", () => {
    const [a, b, c] = [{ query: 'a' }, { query: 'b' }, { query: 'c' }];
    expect(firstAsked([b, b, a, b, c, a], 2)).toEqual([b, a]);
    expect(firstAsked([b, b, a, b, c, a], 10)).toEqual([b, a, c]);
    expect(firstAsked([], 3)).toEqual([]);
  });

  it('draws ranks with Zipf s = 1: rank 1 twice as often as rank 2, ten times rank 10', () => {
    const draw = zipfSampler(1000, 1, seededRandom(1));
    const counts = new Array(1000).fill(0);
    for (let i = 0; i < 400_000; i++) counts[draw()]++;
    expect(counts[0] / counts[1]).toBeGreaterThan(1.85);
    expect(counts[0] / counts[1]).toBeLessThan(2.15);
    expect(counts[0] / counts[9]).toBeGreaterThan(8.5);
    expect(counts[0] / counts[9]).toBeLessThan(11.5);
    // H(1000) ≈ 7.49: the top rank is about 13% of the draws.
    expect(counts[0] / 400_000).toBeCloseTo(1 / 7.485, 2);
  });

  it('makes the asked number of distinct 1–3 word searches in the issue 33 mix', () => {
    const tags = VOCABULARY.slice(0, 100).map((w) => `tag${w}`);
    const searches = textSearches(VOCABULARY, 10_000, seededRandom(2), tags);
    expect(new Set(searches.map((s) => JSON.stringify(s))).size).toBe(10_000);
    const words = searches.map((s) => s.query.replaceAll('"', '').split(' ').length);
    expect(Math.min(...words)).toBe(1);
    expect(Math.max(...words)).toBe(3);
    for (const s of searches)
      for (const w of s.query.replaceAll('"', '').split(' ')) expect(VOCABULARY).toContain(w);
    const share = (pick: (s: (typeof searches)[0]) => unknown) =>
      searches.filter(pick).length / searches.length;
    expect(share((s) => s.filter)).toBe(0.25);
    expect(share((s) => s.groupByPack)).toBe(0.1);
    expect(share((s) => s.query.startsWith('"'))).toBe(0.05);
    for (const s of searches.filter((x) => x.filter)) expect(s.sort).toBeDefined();
    for (const s of searches.filter((x) => x.query.startsWith('"'))) {
      expect(s.query).toMatch(/^"[^"]+ [^"]+"$/);
      expect(s.filter ?? s.groupByPack).toBeUndefined();
    }
    // Every kind of filter appears, tags from the tag list.
    const fields = new Set(searches.flatMap((s) => (s.filter ? [s.filter.split(':')[0]] : [])));
    expect([...fields].sort()).toEqual(['bpm', 'duration', 'license', 'tag', 'type']);
    for (const s of searches.filter((x) => x.filter?.startsWith('tag:')))
      expect(tags).toContain(s.filter?.slice('tag:'.length));
    // Later pages only of plain one-word searches (a narrow query's page 3 would be a 404).
    for (const s of searches.filter((x) => x.page)) {
      expect(s.filter ?? s.groupByPack).toBeUndefined();
      expect(s.query.split(' ')).toHaveLength(1);
    }
  });

  it('is the same for the same seed and differs for another', () => {
    const a = textSearches(VOCABULARY, 2_000, seededRandom(3));
    expect(textSearches(VOCABULARY, 2_000, seededRandom(3))).toEqual(a);
    expect(textSearches(VOCABULARY, 2_000, seededRandom(4))).not.toEqual(a);
  });

  it('spreads a stream over many searches without one dominating', () => {
    const random = seededRandom(5);
    const stream = searchStream(textSearches(VOCABULARY, 10_000, random), 100_000, random);
    const shape = streamShape(stream);
    expect(shape.distinct).toBeGreaterThan(5_000);
    expect(shape.topShare).toBeLessThan(0.12);
  });

  it('draws sound ids uniformly over the catalogue', () => {
    const ids = uniformIds(1000, 100_000, seededRandom(6));
    expect(Math.min(...ids)).toBe(1);
    expect(Math.max(...ids)).toBe(1000);
    const lowHalf = ids.filter((id) => id <= 500).length / ids.length;
    expect(lowHalf).toBeGreaterThan(0.49);
    expect(lowHalf).toBeLessThan(0.51);
  });

  it('refuses a vocabulary too small to make distinct searches', () => {
    expect(() => textSearches(['a', 'b'], 10, seededRandom(7))).toThrow(/too small/);
  });
});
