import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../testing/audio.ts';
import { silenceFlac, understateFlacLength } from '../../testing/bombs.ts';
import { feedableBytes } from './feed-limit.ts';
import { decodeClipInProcess } from './index.ts';

const RATE = 44_100;
const dir = makeTempDir('earshot-clip-bombs-');
let hour: string;
beforeAll(() => {
  hour = silenceFlac(path.join(dir, 'hour.flac'), 3600);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The peak resident memory of this process so far, in bytes. */
function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

describe('a clip of compressed silence (42 KB for an hour)', () => {
  // First in this file: the peak of a fresh worker is what the decode adds to it.
  it('decodes its first 30 s and no more: the peak memory grows by far less than the hour (635 MB)', async () => {
    const before = peakRss();
    const clip = await decodeClipInProcess(hour, { sampleRate: RATE, maxSeconds: 30 });
    expect(clip?.samples.length).toBe(30 * RATE);
    expect(clip?.duration).toBeCloseTo(3600, 3);
    expect(peakRss() - before).toBeLessThan(100 * 1024 ** 2);
  });

  it('is fed to the decoder no more than a frame past what is wanted', () => {
    const head = fs.readFileSync(hour).subarray(0, 64 * 1024);
    // The whole hour is in one 64 KB read (metadata and its padding, then 2423 frames of 65535
    // samples, about 14 bytes each); 30 s are 21 frames: the cut is after the 21st.
    const fed30 = feedableBytes('flac', head, 30 * RATE);
    const fed60 = feedableBytes('flac', head, 60 * RATE);
    expect(fed30).toBeLessThan(head.length / 4);
    const frameBytes = (fed60 - fed30) / 20;
    expect(frameBytes).toBeGreaterThan(5);
    expect(frameBytes).toBeLessThan(30);
  });

  it('whose header understates it, is cut at the clip all the same', async () => {
    const lying = understateFlacLength(silenceFlac(path.join(dir, 'lying.flac'), 600), 40);
    const clip = await decodeClipInProcess(lying, { sampleRate: RATE, maxSeconds: 30 });
    expect(clip?.samples.length).toBe(30 * RATE);
  });
});
