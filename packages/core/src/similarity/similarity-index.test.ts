import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NotFoundError, ValidationError } from '@earshot/common';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { jitterAnalysis, referenceAnalyses, referenceNames } from '../testing/similarity.ts';
import {
  InvalidSoundIdError,
  InvalidVectorError,
  SoundNotIndexedError,
  UnknownSimilaritySpaceError,
  VectorDimensionError,
} from './errors.ts';
import { exactNearest } from './exact-search.ts';
import { SimilarityIndex } from './similarity-index.ts';
import { similarityVectorFromAnalysis } from './spaces/registry.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-similarity-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Reference sound i has id i+1; its near-duplicate (every descriptor moved by up to ±1%) has id 1001+i.
const original = referenceNames.map((name) =>
  similarityVectorFromAnalysis('freesound_classic', referenceAnalyses[name]),
);
const jittered = referenceNames.map((name, i) =>
  similarityVectorFromAnalysis('freesound_classic', jitterAnalysis(referenceAnalyses[name], 0.01, i + 1)),
);
const copyOf = (id: number) => id + 1000;

function fixtureIndex(capacity = 8): SimilarityIndex {
  const index = SimilarityIndex.create({ capacity });
  original.forEach((v, i) => {
    index.upsert(i + 1, v);
  });
  jittered.forEach((v, i) => {
    index.upsert(copyOf(i + 1), v);
  });
  return index;
}

/** Exact ranking over the index's own vectors: on 80 sounds the graph must match it. */
function exactRanking(
  index: SimilarityIndex,
  query: Float32Array,
  k: number,
  allow?: (id: number) => boolean,
) {
  const ids = index.ids();
  const matrix = new Float32Array(ids.length * 100);
  ids.forEach((id, row) => {
    matrix.set(index.vectorOf(id), row * 100);
  });
  return exactNearest(query, matrix, ids, k, allow).map((hit) => hit.id);
}

describe('SimilarityIndex on the reference sounds and their near-duplicates', () => {
  let index: SimilarityIndex;
  beforeEach(() => {
    index = fixtureIndex();
  });

  it('ranks a jittered copy first among the neighbours of each sound, never the sound itself', () => {
    expect(index.size).toBe(80);
    for (let id = 1; id <= referenceNames.length; id++) {
      const neighbours = index.nearestToSound(id, { k: 5 });
      expect(neighbours[0].id, referenceNames[id - 1]).toBe(copyOf(id));
      expect(neighbours[0].score).toBeGreaterThan(0.99);
      expect(neighbours.map((n) => n.id)).not.toContain(id);
      expect(neighbours[0].score).toBeGreaterThan(neighbours[1].score);
    }
  });

  it('scores (1 + cosine) / 2 and reports the cosine distance', () => {
    const [first] = index.nearestToSound(5, { k: 1 });
    const cosine = original[4].reduce((s, v, j) => s + v * jittered[4][j], 0);
    expect(first.score).toBeCloseTo((1 + cosine) / 2, 5);
    expect(first.distance).toBeCloseTo(1 - cosine, 5);
    const [self] = index.nearestToVector(original[4], { k: 1 });
    expect(self).toMatchObject({ id: 5 });
    expect(self.score).toBeCloseTo(1, 5);
  });

  it('answers as exact search does', () => {
    for (const id of [1, 7, 23, 1030]) {
      const expected = exactRanking(index, index.vectorOf(id), 11).filter((x) => x !== id);
      expect(index.nearestToSound(id, { k: 10 }).map((n) => n.id)).toEqual(expected.slice(0, 10));
    }
  });

  it('takes a removed sound out of every result, and can bring it back', () => {
    expect(index.remove(copyOf(3))).toBe(true);
    expect(index.remove(copyOf(3))).toBe(false);
    expect(index.has(copyOf(3))).toBe(false);
    expect(index.size).toBe(79);
    for (const id of index.ids()) {
      expect(index.nearestToSound(id, { k: 79 }).map((n) => n.id)).not.toContain(copyOf(3));
    }
    expect(index.nearestToVector(jittered[2], { k: 79 }).map((n) => n.id)).not.toContain(copyOf(3));
    expect(() => index.nearestToSound(copyOf(3))).toThrow(SoundNotIndexedError);
    index.upsert(copyOf(3), jittered[2]);
    expect(index.nearestToSound(3, { k: 1 })[0].id).toBe(copyOf(3));
  });

  it('reuses a removed sound’s slot for a new one and still revives the old id correctly', () => {
    const slotsBefore = (index as unknown as { graph: { slotCount: number } }).graph.slotCount;
    index.remove(copyOf(7));
    index.upsert(5000, jittered[6]);
    expect((index as unknown as { graph: { slotCount: number } }).graph.slotCount).toBe(slotsBefore);
    index.upsert(copyOf(7), jittered[6]);
    const ids = index.nearestToSound(7, { k: 2 }).map((n) => n.id);
    expect(ids.sort()).toEqual([copyOf(7), 5000].sort());
    expect(index.size).toBe(81);
  });

  it('updates a sound’s vector in place', () => {
    index.upsert(copyOf(10), original[20]);
    expect(index.size).toBe(80);
    expect(index.nearestToSound(21, { k: 1 })[0].id).toBe(copyOf(10));
    expect(
      index
        .nearestToSound(10, { k: 80 })
        .map((n) => n.id)
        .indexOf(copyOf(10)),
    ).toBeGreaterThan(0);
  });

  it('honours a filter predicate, a small id set and a large id set alike', () => {
    const even = (id: number) => id % 2 === 0;
    const expected = exactRanking(index, original[0], 10, (id) => id !== 1 && even(id));
    expect(index.nearestToSound(1, { k: 10, filter: even }).map((n) => n.id)).toEqual(expected);
    const set = new Set(index.ids().filter(even));
    expect(index.nearestToSound(1, { k: 10, filter: set }).map((n) => n.id)).toEqual(expected);
    index.exactScanLimit = 0;
    expect(index.nearestToSound(1, { k: 10, filter: set }).map((n) => n.id)).toEqual(expected);
    // A filter that only one sound passes still finds it.
    expect(index.nearestToSound(1, { k: 10, filter: (id) => id === 1039 }).map((n) => n.id)).toEqual([1039]);
    expect(index.nearestToSound(1, { k: 10, filter: new Set([1, 17]) }).map((n) => n.id)).toEqual([17]);
  });

  it('drops neighbours below minScore', () => {
    const all = index.nearestToSound(12, { k: 79 });
    const kept = index.nearestToSound(12, { k: 79, minScore: 0.7 });
    expect(kept.every((n) => n.score >= 0.7)).toBe(true);
    expect(kept).toEqual(all.filter((n) => n.score >= 0.7));
    expect(kept.length).toBeLessThan(all.length);
  });

  it('reloads a snapshot that answers exactly as before', async () => {
    index.remove(copyOf(2));
    const dir = path.join(tmp, 'reload');
    const meta = await index.snapshot(dir);
    expect(meta).toMatchObject({
      space: 'freesound_classic',
      dimension: 100,
      liveCount: 79,
      deleted: [copyOf(2)],
    });
    const reloaded = await SimilarityIndex.load(dir);
    expect(reloaded.size).toBe(79);
    expect(reloaded.has(copyOf(2))).toBe(false);
    for (const id of index.ids()) {
      expect(reloaded.nearestToSound(id, { k: 15 })).toEqual(index.nearestToSound(id, { k: 15 }));
    }
    // A second snapshot replaces the first graph file; one graph file remains.
    await reloaded.snapshot(dir);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('graph-'))).toHaveLength(1);
  });

  it('queues mutations made while a snapshot is written, and applies them afterwards', async () => {
    const dir = path.join(tmp, 'busy');
    const saving = index.snapshot(dir);
    index.upsert(7000, original[0]);
    index.remove(1);
    index.upsert(7001, original[1]);
    expect(index.remove(7001)).toBe(true);
    expect(index.has(7000)).toBe(false);
    await saving;
    expect(index.has(7000)).toBe(true);
    expect(index.has(7001)).toBe(false);
    expect(index.has(1)).toBe(false);
    const saved = await SimilarityIndex.load(dir);
    expect(saved.has(7000)).toBe(false);
    expect(saved.has(1)).toBe(true);
  });

  it('grows past its initial capacity', () => {
    const small = fixtureIndex(2);
    expect(small.size).toBe(80);
    expect(small.nearestToSound(40, { k: 1 })[0].id).toBe(copyOf(40));
  });

  it('refuses every bad input with its reason', () => {
    expect(() => SimilarityIndex.create({ space: 'foo' })).toThrow(UnknownSimilaritySpaceError);
    expect(() => index.upsert(1, new Float32Array(99))).toThrow(VectorDimensionError);
    expect(() => index.nearestToVector(new Array(101).fill(1))).toThrow(
      'Vector for freesound_classic must have 100 dimensions, got 101',
    );
    expect(() => index.upsert(2, new Array(100).fill(Number.NaN))).toThrow(InvalidVectorError);
    expect(() => index.nearestToVector(new Array(100).fill(0))).toThrow(InvalidVectorError);
    expect(() => index.upsert(0, original[0])).toThrow(InvalidSoundIdError);
    expect(() => index.upsert(1.5, original[0])).toThrow(InvalidSoundIdError);
    expect(() => index.nearestToSound(999_999)).toThrow('Sound 999999 is not in the similarity index');
    expect(() => index.nearestToSound(999_999)).toThrow(NotFoundError);
    expect(() => index.nearestToSound(1, { k: 0 })).toThrow(ValidationError);
    expect(() => index.nearestToSound(1, { minScore: 2 })).toThrow('minScore must be between 0 and 1, got 2');
    expect(() => index.nearestToSound(1, { ef: -1 })).toThrow(ValidationError);
  });

  it('reports a missing snapshot as not found', async () => {
    await expect(SimilarityIndex.load(path.join(tmp, 'absent'))).rejects.toThrow(NotFoundError);
  });
});
