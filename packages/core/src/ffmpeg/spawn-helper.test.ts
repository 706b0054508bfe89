import { fixture } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeFile } from '../media/probe.ts';
import { probeArgs } from './args.ts';
import { FfmpegProcessError } from './errors.ts';
import { runBinary } from './run.ts';
import { spawnHelperPid, useSpawnHelper } from './spawn-helper.ts';

// ffprobe started by the spawn helper (a small process) answers as ffprobe started by this one:
// the same output, the same errors, the same timeout; a helper that died is replaced.
describe('ffprobe through the spawn helper', () => {
  beforeAll(() => useSpawnHelper());
  afterAll(() => useSpawnHelper(false));

  it('gives the same probe as a direct start, from another process', async () => {
    const file = fixture('sine-a4');
    useSpawnHelper(false);
    const direct = await runBinary('ffprobe', probeArgs(file));
    useSpawnHelper();
    const helped = await runBinary('ffprobe', probeArgs(file));
    expect(spawnHelperPid()).toBeGreaterThan(0);
    expect(spawnHelperPid()).not.toBe(process.pid);
    expect(JSON.parse(helped.stdout.toString())).toEqual(JSON.parse(direct.stdout.toString()));
    const probe = await probeFile(file, { md5: false });
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
});
