import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { SpawnHelperError } from './errors.ts';
import { dieWithParent } from './parent-death.ts';
import { TailBuffer } from './tail-buffer.ts';

/**
 * A small long-lived Node process that starts short binaries (ffprobe) for this one and sends back
 * what they printed. Why: starting a process forks the one that asks, and the fork (with the wait
 * for the child's exec) runs on the event loop: in `earshot serve` (API, embedded catalogue,
 * in-process worker) a CPU profile during uploads showed ~12 ms of `ChildProcess.spawn` per
 * upload probe, more on a busy machine, as the kernel copies the page tables of a large process.
 * Forking this helper, a few MB of heap, costs little; the large process only sends it a message.
 * The helper dies with this process (pdeathsig, and it exits when the IPC channel closes), and so
 * do the binaries it started (each runs under the same pdeathsig wrapper, its parent the helper).
 */

/** Plain JavaScript run with `node -e` (no TypeScript loader in the helper). */
const HELPER_SOURCE = `
const { spawn } = require('node:child_process');
const TAIL = 4096;
const running = new Map();
process.on('message', (m) => {
  const out = [];
  const err = [];
  let errBytes = 0;
  let timedOut = false;
  let failure;
  let child;
  try {
    child = spawn(m.command, m.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    process.send({ id: m.id, code: null, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timedOut, failure: { message: e.message, syscall: e.syscall, code: e.code } });
    return;
  }
  running.set(m.id, child);
  const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, m.timeoutMs);
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => {
    err.push(c);
    errBytes += c.length;
    while (err.length > 1 && errBytes - err[0].length >= TAIL) errBytes -= err.shift().length;
  });
  child.on('error', (e) => { failure = { message: e.message, syscall: e.syscall, code: e.code }; });
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    running.delete(m.id);
    process.send({ id: m.id, code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut, failure });
  });
});
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  process.exit(0);
});
`;

export interface HelperRun {
  command: string;
  args: readonly string[];
  timeoutMs: number;
}

export interface HelperResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  /** The end of what the binary wrote to stderr (the helper keeps the last 4 KiB or so). */
  stderr: Buffer;
  timedOut: boolean;
  /** The binary could not be started (ENOENT, EACCES…). */
  failure?: { message: string; syscall?: string; code?: string };
}

interface Reply extends Omit<HelperResult, 'stdout' | 'stderr'> {
  id: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/**
 * One helper process, started by an Ffmpeg made with `spawnHelper: true` on its first ffprobe and
 * replaced when it dies.
 */
export class SpawnHelper {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<
    number,
    { resolve: (r: HelperResult) => void; reject: (e: Error) => void }
  >();
  private nextId = 1;
  private gone = false;
  private readonly stderr = new TailBuffer(1024);
  /** Called once when the helper is gone (the owner then starts a new one for the next run). */
  onGone: (() => void) | undefined;

  constructor() {
    const env = { ...process.env };
    // The parent's loader flags (tsx) are not needed by plain JavaScript and cost start-up time.
    delete env.NODE_OPTIONS;
    const run = dieWithParent(process.execPath, ['--max-old-space-size=64', '-e', HELPER_SOURCE]);
    // Its own stderr is kept, not inherited: a library writes nothing to its host's streams, and a
    // helper that dies says why in the error its runs get.
    this.child = spawn(run.command, run.args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env,
    });
    const stderr = this.child.stderr as Socket;
    stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    stderr.unref();
    this.child.on('message', (message) => {
      const m = message as unknown as Reply;
      const job = this.waiting.get(m.id);
      if (!job) return;
      this.forget(m.id);
      job.resolve({
        ...m,
        stdout: Buffer.from(m.stdout.buffer, m.stdout.byteOffset, m.stdout.byteLength),
        stderr: Buffer.from(m.stderr.buffer, m.stderr.byteOffset, m.stderr.byteLength),
      });
    });
    const down = (err: Error) => {
      if (this.gone) return;
      this.gone = true;
      this.onGone?.();
      for (const job of this.waiting.values()) job.reject(err);
      this.waiting.clear();
    };
    this.child.on('error', (err) => down(new SpawnHelperError(`the spawn helper failed: ${err.message}`)));
    this.child.on('exit', (code, signal) => {
      const said = this.stderr.toString();
      down(new SpawnHelperError(`the spawn helper exited (${code ?? signal})${said ? `: ${said}` : ''}`));
    });
    // An idle helper must not keep this process alive (a command that is done exits).
    this.child.unref();
    this.child.channel?.unref();
  }

  run(job: HelperRun): Promise<HelperResult> {
    const id = this.nextId++;
    const result = new Promise<HelperResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    if (this.waiting.size === 1) this.child.channel?.ref();
    this.child.send({ id, command: job.command, args: job.args, timeoutMs: job.timeoutMs }, (err) => {
      if (!err) return;
      const waiting = this.waiting.get(id);
      this.forget(id);
      waiting?.reject(new SpawnHelperError(`the spawn helper could not be reached: ${err.message}`));
    });
    return result;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }

  private forget(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.child.channel?.unref();
  }
}
