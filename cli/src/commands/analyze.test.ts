import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeFrameValues, type FramesFile } from '@earshot/core';
import { fixture, fixtureEntry } from '@earshot/fixtures';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/earshot.mjs', import.meta.url));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-cli-analyze-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function earshot(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
}

describe('earshot analyze', () => {
  const clicks = fixture('clicks-120bpm');
  const truth = fixtureEntry('clicks-120bpm');

  it('prints the variant-B dictionary and streams a frames file that parses', () => {
    const frames = path.join(work, 'frames.json');
    const run = earshot('analyze', clicks, '--frames', frames);
    expect(run.status, run.stderr).toBe(0);
    const b = JSON.parse(run.stdout);
    expect(truth.truth.bpm).toBe(120);
    expect(Math.abs(b.bpm - 120)).toBeLessThanOrEqual(1);
    expect(b.onset_count).toBe(b.onset_times.length);
    const file = JSON.parse(fs.readFileSync(frames, 'utf8')) as FramesFile;
    expect(file.format).toBe('earshot-frames');
    const lowlevel = file.groups.lowlevel;
    const times = decodeFrameValues(lowlevel.times);
    expect(times.length).toBe(lowlevel.frames);
    // The reference's frame rule keeps frames whose start is inside the signal: the last one is
    // centred less than half a frame (1024 samples) past the end.
    const duration = truth.duration ?? 10;
    expect(times[times.length - 1]).toBeLessThan(duration + 1024 / 44100);
    expect(times[times.length - 1]).toBeGreaterThan(duration - 1024 / 44100);
  });

  it('prints the dotted tree with --variant a and tracks beats with essentia.js on request', () => {
    const run = earshot('analyze', clicks, '--variant', 'a', '--rhythm', 'essentia');
    expect(run.status, run.stderr).toBe(0);
    const a = JSON.parse(run.stdout);
    expect(Math.abs(a.rhythm.bpm - 120)).toBeLessThanOrEqual(1);
    expect(a.lowlevel.spectral_centroid.mean).toBeGreaterThan(0);
  });

  it('refuses an unknown variant or beat tracker with a usage error naming the option', () => {
    const variant = earshot('analyze', clicks, '--variant', 'C');
    expect(variant.status).not.toBe(0);
    expect(variant.stderr).toContain("option '--variant <A|B>' argument 'C' is invalid");
    const rhythm = earshot('analyze', clicks, '--rhythm', 'madmom');
    expect(rhythm.status).not.toBe(0);
    expect(rhythm.stderr).toContain('Allowed choices are earshot, essentia');
  });
});
