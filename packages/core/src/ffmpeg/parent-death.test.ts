import { spawn, spawnSync } from 'node:child_process';
import { processAlive } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import { dieWithParent } from './parent-death.ts';

const CHILD = new URL('../testing/long-ffmpeg.ts', import.meta.url).pathname;

/** The pids of `parent`'s children (from procps' ps). */
function childrenOf(parent: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}

describe('ffmpeg dies with the process that started it', () => {
  it('builds the command line through setpriv on Linux', () => {
    const run = dieWithParent('/usr/bin/ffmpeg', ['-i', 'x']);
    if (process.platform === 'linux') expect(run.args.slice(0, 3)).toEqual(['--pdeathsig', 'KILL', '--']);
    expect(run.args.slice(-3)).toEqual(['/usr/bin/ffmpeg', '-i', 'x']);
  });

  it.runIf(process.platform === 'linux')(
    'a worker killed with SIGKILL leaves no ffmpeg running',
    async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('started') && resolve());
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) before starting ffmpeg`)));
      });
      const ffmpegs = childrenOf(child.pid as number);
      expect(ffmpegs.length).toBeGreaterThan(0);
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      const deadline = Date.now() + 5_000;
      while (ffmpegs.some(processAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(ffmpegs.filter(processAlive)).toEqual([]);
    },
    30_000,
  );
});
