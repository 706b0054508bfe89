import { testService } from '@earshot/common/testing';
import type { VariantB } from '@earshot/core';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  setModerationState,
  setProcessingState,
  testBackends,
  useRepositoryCatalogue,
} from '../testing/index.ts';
import { setAnalysis } from './analysis.ts';
import { descriptorRanges, rebuildDescriptorRanges } from './descriptor-ranges.ts';
import { createSound, deleteSound } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('descriptor ranges on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  /** A sound whose tree holds `value` under a leaf of the test's own, so tests never share ranges. */
  async function sound(leaf: string, value: number, visible = true, extra: Record<string, unknown> = {}) {
    const user = await createUser(db(), { username: unique('u') });
    const created = await createSound(db(), {
      userId: user.id,
      name: unique('s'),
      description: '',
      tags: ['x'],
      license: 'Creative Commons 0',
      originalFilename: 'x.wav',
      originalPath: `${unique('o/')}.wav`,
    });
    await setAnalysis(db(), created.id, {
      values: {},
      analysisB: {} as VariantB,
      analysisA: { lowlevel: { [leaf]: { mean: value, ...extra } } },
      analyzer: 'test',
    });
    await setProcessingState(db(), created.id, { state: 'Processed' });
    if (visible) await setModerationState(db(), created.id, 'ok', null);
    return created.id;
  }

  const range = async (name: string) => (await descriptorRanges(db(), [name])).get(name);

  it('spans the visible sounds and widens as soon as a sound extends it', async () => {
    const leaf = unique('leaf');
    const name = `lowlevel.${leaf}.mean`;
    await sound(leaf, 5);
    await sound(leaf, 2);
    expect(await range(name)).toEqual({ min: 2, max: 5 });
    await sound(leaf, 9);
    expect(await range(name)).toEqual({ min: 2, max: 9 });
  });

  it('widens when a tree is stored for a sound that is already visible', async () => {
    const leaf = unique('leaf');
    const name = `lowlevel.${leaf}.mean`;
    await sound(leaf, 1);
    const user = await createUser(db(), { username: unique('u') });
    const later = await createSound(db(), {
      userId: user.id,
      name: unique('s'),
      description: '',
      tags: ['x'],
      license: 'Creative Commons 0',
      originalFilename: 'x.wav',
      originalPath: `${unique('o/')}.wav`,
    });
    await setProcessingState(db(), later.id, { state: 'Processed' });
    await setModerationState(db(), later.id, 'ok', null);
    await setAnalysis(db(), later.id, {
      values: {},
      analysisB: {} as VariantB,
      analysisA: { lowlevel: { [leaf]: { mean: 42 } } },
      analyzer: 'test',
    });
    expect(await range(name)).toEqual({ min: 1, max: 42 });
  });

  it('ignores sounds that are not visible until they are approved', async () => {
    const leaf = unique('leaf');
    const name = `lowlevel.${leaf}.mean`;
    await sound(leaf, 1);
    const pending = await sound(leaf, 100, false);
    expect(await range(name)).toEqual({ min: 1, max: 1 });
    await setModerationState(db(), pending, 'ok', null);
    expect(await range(name)).toEqual({ min: 1, max: 100 });
  });

  it('keeps a range when its extreme sound leaves, until a rebuild recomputes it', async () => {
    const leaf = unique('leaf');
    const name = `lowlevel.${leaf}.mean`;
    await sound(leaf, 3);
    const high = await sound(leaf, 50);
    const low = await sound(leaf, -7);
    await sound(leaf, 10);
    expect(await range(name)).toEqual({ min: -7, max: 50 });
    await setModerationState(db(), high, 'rejected', null);
    await deleteSound(db(), low);
    expect(await range(name)).toEqual({ min: -7, max: 50 });
    await rebuildDescriptorRanges(db());
    expect(await range(name)).toEqual({ min: 3, max: 10 });
    // A visible sound's new tree widens at once.
    await setModerationState(db(), high, 'ok', null);
    expect(await range(name)).toEqual({ min: 3, max: 50 });
  });

  it('keeps one range per element of a fixed-length list and none for variable-length lists', async () => {
    const leaf = unique('leaf');
    await sound(leaf, 1, true, { vec: [1, 10, 100] });
    await sound(leaf, 1, true, { vec: [2, 5, 300] });
    const user = await createUser(db(), { username: unique('u') });
    const beats = await createSound(db(), {
      userId: user.id,
      name: unique('s'),
      description: '',
      tags: ['x'],
      license: 'Creative Commons 0',
      originalFilename: 'x.wav',
      originalPath: `${unique('o/')}.wav`,
    });
    await setAnalysis(db(), beats.id, {
      values: {},
      analysisB: {} as VariantB,
      analysisA: { rhythm: { onset_times: [0.1, 0.5], [leaf]: 'a string' } },
      analyzer: 'test',
    });
    await setProcessingState(db(), beats.id, { state: 'Processed' });
    await setModerationState(db(), beats.id, 'ok', null);
    const names = [0, 1, 2].map((i) => `lowlevel.${leaf}.vec[${i}]`);
    const ranges = await descriptorRanges(db(), [...names, 'rhythm.onset_times[0]', `rhythm.${leaf}`]);
    expect(names.map((n) => ranges.get(n))).toEqual([
      { min: 1, max: 2 },
      { min: 5, max: 10 },
      { min: 100, max: 300 },
    ]);
    expect(ranges.has('rhythm.onset_times[0]')).toBe(false);
    expect(ranges.has(`rhythm.${leaf}`)).toBe(false);
  });

  it('rebuilds to exactly what the triggers kept', async () => {
    const leaf = unique('leaf');
    await sound(leaf, 8);
    await sound(leaf, -2);
    const before = await sql<{ name: string; min: number; max: number }>`
      select name, min, max from descriptor_ranges order by name`.execute(db());
    await rebuildDescriptorRanges(db());
    const after = await sql<{ name: string; min: number; max: number }>`
      select name, min, max from descriptor_ranges order by name`.execute(db());
    expect(after.rows).toEqual(before.rows);
    expect(after.rows.length).toBeGreaterThan(0);
  });
});
