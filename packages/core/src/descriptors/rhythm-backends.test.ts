/**
 * Our beat tracker against essentia.js's RhythmExtractor2013 (the reference backend, `rhythm: 'essentia'`)
 * on the rhythm fixtures: the same tempo to within 1 BPM, and nearly every essentia beat matched by one of
 * ours within 70 ms.
 */
import { fixture, loadManifest } from '@earshot/fixtures';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeFile } from './analyze-file.ts';
import { stopEssentiaWorker } from './essentia-client.ts';

const entries = loadManifest().fixtures.filter(
  (f) => !f.bad && (f.group === 'rhythm' || f.name === 'music-mix-60s' || f.name === 'loop-seamless-120bpm'),
);

afterAll(stopEssentiaWorker);

describe('rhythm backends agree (earshot vs essentia.js)', () => {
  it.each(entries.map((f) => [f.name] as const))('%s', async (name) => {
    const ours = await analyzeFile(fixture(name));
    const reference = await analyzeFile(fixture(name), { rhythm: 'essentia' });
    expect(ours.timings.essentia).toBeUndefined();
    expect(reference.timings.essentia).toBeGreaterThan(0);
    expect(Math.abs(ours.variantB.bpm - reference.variantB.bpm)).toBeLessThanOrEqual(1);
    const theirs = reference.variantB.beat_times;
    const matched = theirs.filter((t) => ours.variantB.beat_times.some((u) => Math.abs(u - t) <= 0.07));
    expect(matched.length / theirs.length).toBeGreaterThanOrEqual(0.9);
    expect(Math.abs(ours.variantB.beat_count - reference.variantB.beat_count)).toBeLessThanOrEqual(2);
    expect(ours.variantB.loopable).toBe(reference.variantB.loopable);
  });
});
