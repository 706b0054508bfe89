import { processAlive } from '@earshot/common/testing';
import { fixture } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeFile } from '../media/probe.ts';
import { probeArgs } from './args.ts';
import { FfmpegProcessError } from './errors.ts';
import { Ffmpeg } from './ffmpeg.ts';

// ffprobe started by the spawn helper (a small process) answers as ffprobe started by this one:
// the same output, the same errors, the same timeout; a helper that died is replaced.
describe('ffprobe through the spawn helper', () => {
  let helped: Ffmpeg;
  const runBinary: Ffmpeg['run'] = (...args) => helped.run(...args);
  const spawnHelperPid = () => helped.spawnHelperPid;
  beforeAll(() => {
    helped = new Ffmpeg({ spawnHelper: true });
  });
  afterAll(() => helped.close());

  it('gives the same probe as a direct start, from another process', async () => {
    const file = fixture('sine-a4');
    const direct = await new Ffmpeg().run('ffprobe', probeArgs(file));
    const viaHelper = await runBinary('ffprobe', probeArgs(file));
    expect(spawnHelperPid()).toBeGreaterThan(0);
    expect(spawnHelperPid()).not.toBe(process.pid);
    expect(JSON.parse(viaHelper.stdout.toString())).toEqual(JSON.parse(direct.stdout.toString()));
    const probe = await probeFile(file, { md5: false, ffmpeg: helped });
    expect(probe.type).toBe('wav');
    expect(probe.duration).toBeGreaterThan(0);
  });

  it('keeps the tail of stderr and the exit code in the error', async () => {
    const error = await runBinary('ffprobe', probeArgs('/nonexistent/x.wav')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegProcessError);
    expect((error as FfmpegProcessError).stderrTail).toMatch(/No such file/);
    expect((error as FfmpegProcessError).exitCode).not.toBe(0);
  });

  it('kills a probe that outlives its timeout', async () => {
    // An endless generated source whose packets are listed: only the timeout can end it.
    const args = ['-v', 'error', '-f', 'lavfi', '-i', 'anullsrc', '-show_packets'];
    const error = await runBinary('ffprobe', args, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegProcessError);
    expect((error as FfmpegProcessError).timedOut).toBe(true);
  });

  it('starts a new helper after the old one died', async () => {
    await runBinary('ffprobe', probeArgs(fixture('sine-a4')));
    const first = spawnHelperPid() as number;
    process.kill(first, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    const again = await runBinary('ffprobe', probeArgs(fixture('sine-a4')));
    expect(JSON.parse(again.stdout.toString()).streams).toHaveLength(1);
    expect(spawnHelperPid()).not.toBe(first);
  });

  it('belongs to its instance: another starts ffprobe itself, and close stops the helper', async () => {
    const file = fixture('sine-a4');
    await runBinary('ffprobe', probeArgs(file));
    const pid = spawnHelperPid() as number;
    const plain = new Ffmpeg();
    await plain.run('ffprobe', probeArgs(file));
    expect(plain.spawnHelperPid).toBeUndefined();
    helped.close();
    expect(spawnHelperPid()).toBeUndefined();
    await expect.poll(() => processAlive(pid), { timeout: 5000 }).toBe(false);
  });
});
