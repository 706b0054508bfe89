import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixture, fixtureEntry } from '@earshot/fixtures';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/earshot.mjs', import.meta.url));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-cli-process-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function earshot(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
}

describe('earshot process', () => {
  it('writes previews, images, peaks (and analysis files) and prints a JSON summary with the probe values', () => {
    const entry = fixtureEntry('fmt-mp3');
    const out = path.join(work, 'mp3');
    const run = earshot('process', fixture('fmt-mp3'), '--out', out);
    expect(run.status, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary.probe).toMatchObject({
      type: 'mp3',
      samplerate: entry.sampleRate,
      channels: entry.channels,
      bitdepth: 0,
      filesize: entry.filesize,
      md5: entry.md5,
    });
    expect(summary.probe.raw).toBeUndefined();
    const written = [
      ...Object.values(summary.files.previews as Record<string, string>),
      ...Object.values(summary.files.images as Record<string, string>),
      summary.files.peaks as string,
    ];
    expect(written).toHaveLength(9);
    for (const file of written) expect(fs.statSync(file).size).toBeGreaterThan(0);
    // Whatever the analysis hook adds is listed too; the folder holds exactly what the summary names.
    const analysis = summary.files.analysis as string[];
    expect(fs.readdirSync(out).sort()).toEqual(
      [...written, ...analysis].map((f) => path.relative(out, f)).sort(),
    );
  });

  it('refuses a bad file with the user-facing message, exit code 2 and no output folder', () => {
    const out = path.join(work, 'bad');
    const run = earshot('process', fixture('bad-random'), '--out', out);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^earshot: The file is damaged or incomplete/m);
    expect(run.stdout).toBe('');
    expect(fs.existsSync(out)).toBe(false);
  });
});
