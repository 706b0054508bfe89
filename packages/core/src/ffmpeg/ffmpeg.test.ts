import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixture } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeFile } from '../media/probe.ts';
import { FfmpegNotFoundError } from './errors.ts';
import { defaultFfmpeg, Ffmpeg } from './ffmpeg.ts';

// Two users of the core in one process, each with its own binaries: a wrapper script that stands
// for "another ffmpeg build" (it reports its own version and leaves a mark for every run, then
// execs the real binary) and the default found on PATH. Neither choice leaks into the other.
describe('binary choice per Ffmpeg instance', () => {
  let dir: string;
  let marks: string;
  let wrapped: { ffmpegPath: string; ffprobePath: string };

  const wrapper = (real: string, name: string) => {
    const file = path.join(dir, `my-${name}`);
    fs.writeFileSync(
      file,
      [
        '#!/bin/sh',
        `if [ "$1" = "-version" ]; then echo "${name} version 0.0-wrapped"; exit 0; fi`,
        `echo ${name} >> "${marks}"`,
        `exec "${real}" "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    return file;
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-ffmpeg-choice-'));
    marks = path.join(dir, 'runs.txt');
    const real = new Ffmpeg();
    wrapped = {
      ffmpegPath: wrapper(real.binary('ffmpeg').path, 'ffmpeg'),
      ffprobePath: wrapper(real.binary('ffprobe').path, 'ffprobe'),
    };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const runs = () => (fs.existsSync(marks) ? fs.readFileSync(marks, 'utf8').trim().split('\n') : []);

  it('runs the binaries each instance was given, side by side', async () => {
    const mine = new Ffmpeg(wrapped);
    const theirs = new Ffmpeg();
    expect(mine.binary('ffprobe')).toEqual({ path: wrapped.ffprobePath, source: 'option' });
    expect(await mine.version('ffprobe')).toBe('0.0-wrapped');
    expect(await theirs.version('ffprobe')).not.toBe('0.0-wrapped');
    expect(defaultFfmpeg().binary('ffprobe').path).toBe(theirs.binary('ffprobe').path);

    const file = fixture('sine-a4');
    const [a, b] = await Promise.all([
      probeFile(file, { md5: false, ffmpeg: mine }),
      probeFile(file, { md5: false, ffmpeg: theirs }),
    ]);
    expect(a.duration).toBeCloseTo(b.duration, 6);
    // Only the instance given the wrapper ran it.
    expect(runs()).toEqual(['ffprobe']);
    await probeFile(file, { md5: false });
    expect(runs()).toEqual(['ffprobe']);
  });

  it('tells its own logger once per binary', async () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logged = new Ffmpeg({
      ...wrapped,
      logger: { info: (fields, message) => lines.push({ fields, message }) },
    });
    const file = fixture('sine-a4');
    await probeFile(file, { md5: false, ffmpeg: logged });
    await probeFile(file, { md5: false, ffmpeg: logged });
    await probeFile(file, { md5: false, ffmpeg: new Ffmpeg(wrapped) });
    // The line waits for the binary's answer to `-version`, asked in the background.
    await logged.version('ffprobe');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([
      {
        message: 'using ffprobe',
        fields: { binary: 'ffprobe', path: wrapped.ffprobePath, version: '0.0-wrapped', source: 'option' },
      },
    ]);
  });

  it('tells nothing, and asks no version, when its logger does not log at info', async () => {
    const lines: unknown[] = [];
    const quiet = new Ffmpeg({
      ...wrapped,
      logger: { info: (fields) => lines.push(fields), isLevelEnabled: () => false },
    });
    const before = runs().length;
    await probeFile(fixture('sine-a4'), { md5: false, ffmpeg: quiet });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines).toEqual([]);
    // The wrapper marks every run but `-version`: one probe, nothing else started.
    expect(runs().length).toBe(before + 1);
  });

  it('refuses a path that is not an executable file with a typed error, and does not fall back', async () => {
    const broken = new Ffmpeg({ ffprobePath: path.join(dir, 'no-such-ffprobe') });
    expect(() => broken.binary('ffprobe')).toThrow(FfmpegNotFoundError);
    const error = await probeFile(fixture('sine-a4'), { md5: false, ffmpeg: broken }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FfmpegNotFoundError);
    expect(error).toMatchObject({ binary: 'ffprobe', path: path.join(dir, 'no-such-ffprobe') });
    expect((error as Error).message).toMatch(/is not an executable file/);
  });
});
