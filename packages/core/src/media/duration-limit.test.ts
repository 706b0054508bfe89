import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, synth } from '../testing/audio.ts';
import { silenceFlac, understateFlacLength } from '../testing/bombs.ts';
import { decodeMono } from './decode.ts';
import { decodeLimitSeconds } from './duration-limit.ts';
import { MediaError } from './errors.ts';
import { probeFileHeader } from './header-probe.ts';
import { processFile } from './pipeline.ts';
import { probeFile } from './probe.ts';

const MAX = 600;
const work = makeTempDir('earshot-duration-limit-');
let hour: string;
let lying: string;
beforeAll(() => {
  hour = silenceFlac(path.join(work, 'hour.flac'), 3600);
  lying = understateFlacLength(silenceFlac(path.join(work, 'lying.flac'), 3600), 10);
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

async function failure(work: Promise<unknown>): Promise<MediaError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MediaError);
  return err as MediaError;
}

describe('the longest sound taken', () => {
  it('is read from a FLAC header before anything is decoded', async () => {
    const header = await probeFileHeader(hour, 'hour.flac');
    expect(header?.duration).toBeCloseTo(3600, 3);
  });

  it('refuses a probe of a longer file (too_long, naming both lengths)', async () => {
    const err = await failure(probeFile(hour, { fileName: 'hour.flac', maxDuration: MAX }));
    expect(err.code).toBe('too_long');
    expect(err.message).toContain('60 min');
    expect(err.message).toContain('10 min');
  });

  it('fails the media pipeline of a longer file before it decodes', async () => {
    const out = path.join(work, 'out-hour');
    const err = await failure(processFile(hour, out, { maxDuration: MAX }));
    expect(err.code).toBe('too_long');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('stops the decode of a header that understates its stream, holding no more than it stated', async () => {
    const before = process.memoryUsage().rss;
    const out = path.join(work, 'out-lying');
    const err = await failure(processFile(lying, out, { maxDuration: MAX }));
    expect(err.code).toBe('corrupt_file');
    expect(err.message).toContain('header says it lasts 10 s');
    // The whole hour at 44.1 kHz would be 635 MB of float32.
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 ** 2);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('stops decodeMono of such a header too', async () => {
    const err = await failure(decodeMono(lying, { maxDuration: MAX }));
    expect(err.code).toBe('corrupt_file');
  });

  it('stops a decode at the limit even with no header to hold it to (the one-ffmpeg way too)', async () => {
    // An honest 20 s header, a limit of 5 s: the sink stops the stream past 5 s (+1 s of slack).
    const file = synth(path.join(work, 'tone.flac'), 'sine=f=440:d=20');
    const probe = await probeFile(file);
    const err = await failure(
      processFile(file, path.join(work, 'out-tone'), { probe, maxDuration: 5, relayPreviews: false }),
    );
    expect(err.code).toBe('too_long');
  });

  it('takes a sound within the limit', async () => {
    const file = synth(path.join(work, 'short.flac'), 'sine=f=440:d=3');
    const result = await processFile(file, path.join(work, 'out-short'), { maxDuration: MAX });
    expect(result.decodedDuration).toBeCloseTo(3, 1);
  });

  it('lets a decode run a little past what the header states, and never past the limit', () => {
    expect(decodeLimitSeconds('flac', 10, MAX)).toBeCloseTo(11.2, 6);
    expect(decodeLimitSeconds('wav', 599.5, MAX)).toBe(MAX + 1);
    // An mp3's stated length may be an estimate from its first frames: held to the limit alone.
    expect(decodeLimitSeconds('mp3', 10, MAX)).toBe(MAX + 1);
    expect(decodeLimitSeconds('mp3', 10, undefined)).toBe(Number.POSITIVE_INFINITY);
  });
});
