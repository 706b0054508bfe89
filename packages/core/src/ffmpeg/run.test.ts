import { describe, expect, it } from 'vitest';
import { FfmpegProcessError } from './errors.ts';
import { Ffmpeg } from './ffmpeg.ts';
import { TailBuffer } from './tail-buffer.ts';

const ffmpeg = new Ffmpeg();
const runBinary = ffmpeg.run.bind(ffmpeg);
const runLinked = ffmpeg.runLinked.bind(ffmpeg);

describe('Ffmpeg.run', () => {
  it('resolves a working ffmpeg and reports its version', async () => {
    const binary = ffmpeg.binary('ffmpeg');
    expect(['path', 'npm']).toContain(binary.source);
    expect(await ffmpeg.version('ffmpeg')).toMatch(/\d/);
  });

  it('kills a process that outlives its timeout', async () => {
    // An endless generated source: only the timeout can end it.
    const args = ['-v', 'error', '-re', '-f', 'lavfi', '-i', 'anullsrc', '-f', 'null', '-'];
    const error = await runBinary('ffmpeg', args, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegProcessError);
    expect((error as FfmpegProcessError).timedOut).toBe(true);
  });

  it('keeps the tail of stderr in the error', async () => {
    const error = await runBinary('ffmpeg', [
      '-v',
      'error',
      '-i',
      'file:/nonexistent/x.wav',
      '-f',
      'null',
      '-',
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegProcessError);
    expect((error as FfmpegProcessError).stderrTail).toMatch(/No such file/);
    expect((error as FfmpegProcessError).message).toMatch(/No such file/);
    expect((error as FfmpegProcessError).exitCode).not.toBe(0);
  });

  it('streams stdout to a consumer', async () => {
    let bytes = 0;
    const args = [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'anullsrc=r=8000:cl=mono',
      '-t',
      '1',
      '-f',
      'f32le',
      'pipe:1',
    ];
    const result = await runBinary('ffmpeg', args, { onStdout: (c) => (bytes += c.length) });
    expect(bytes).toBe(8000 * 4);
    expect(result.stdout.length).toBe(0);
  });
});

describe('Ffmpeg.runLinked', () => {
  const produce = (seconds: string) => [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=8000:cl=mono',
    '-t',
    seconds,
    '-f',
    'f32le',
    'pipe:1',
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=8000:cl=mono',
    '-map',
    '1:0',
    '-t',
    seconds,
    '-f',
    'f32le',
    'pipe:3',
  ];

  it("joins the producer's fd 3 to the consumer's stdin", async () => {
    let bytes = 0;
    const consumer = [
      '-v',
      'error',
      '-f',
      'f32le',
      '-ar',
      '8000',
      '-ac',
      '1',
      '-i',
      'pipe:0',
      '-f',
      'f32le',
      'pipe:1',
    ];
    const [, second] = await runLinked(
      { name: 'ffmpeg', args: produce('1'), options: { onStdout: (c) => (bytes += c.length) } },
      { name: 'ffmpeg', args: consumer },
      { timeoutMs: 30_000 },
    );
    expect(bytes).toBe(8000 * 4);
    expect(second.stdout.length).toBe(8000 * 4);
  });

  it('kills the producer when the consumer fails, and reports the consumer’s error', async () => {
    const endless = ['-v', 'error', '-re', '-f', 'lavfi', '-i', 'anullsrc', '-f', 'f32le', 'pipe:3'];
    const broken = [
      '-v',
      'error',
      '-f',
      'f32le',
      '-i',
      'pipe:0',
      '-c:a',
      'no-such-encoder',
      '-f',
      'null',
      '-',
    ];
    const started = Date.now();
    const error = await runLinked(
      { name: 'ffmpeg', args: endless },
      { name: 'ffmpeg', args: broken },
      { timeoutMs: 20_000 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegProcessError);
    expect((error as FfmpegProcessError).timedOut).toBe(false);
    expect((error as FfmpegProcessError).stderrTail).toMatch(/no-such-encoder/);
    // Ended by the failure, not by the 20 s limit.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('TailBuffer', () => {
  it('keeps only the last bytes', () => {
    const tail = new TailBuffer(10);
    for (let i = 0; i < 100; i++) tail.push(Buffer.from(`line ${i}\n`));
    expect(tail.toString()).toBe('8\nline 99');
  });
});
