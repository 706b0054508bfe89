import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { type BinaryName, resolveBinary } from './binaries.ts';
import { FfmpegProcessError } from './errors.ts';
import { dieWithParent } from './parent-death.ts';
import { runInHelper, spawnHelperEnabled } from './spawn-helper.ts';

const STDERR_TAIL_BYTES = 4096;
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export interface RunOptions {
  /** Kill the process (SIGKILL) after this long; every ffmpeg run has a limit. */
  timeoutMs?: number;
  /** Receives stdout chunks as they arrive; when absent, stdout is collected and returned. */
  onStdout?: (chunk: Buffer) => void;
  signal?: AbortSignal;
}

export interface RunResult {
  /** Collected stdout (empty when onStdout consumed it). */
  stdout: Buffer;
  stderrTail: string;
}

/** Keeps only the last `limit` bytes of a stream, so a chatty ffmpeg cannot grow memory. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit = STDERR_TAIL_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }

  toString(): string {
    const all = Buffer.concat(this.chunks);
    return all
      .subarray(Math.max(0, all.length - this.limit))
      .toString('utf8')
      .trim();
  }
}

/**
 * The one place that spawns ffmpeg or ffprobe. Spawns directly (not through fluent-ffmpeg) because
 * the pipeline needs one input fanned out to several outputs plus raw pipes, two processes linked
 * by a pipe, a hard timeout on every process and the stderr tail in the error; fluent-ffmpeg's
 * ffprobe has no timeout at all.
 */
export function runBinary(
  name: BinaryName,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  // ffprobe (short, its output collected) goes through the spawn helper where the process opted in.
  if (name === 'ffprobe' && spawnHelperEnabled() && !options.onStdout && !options.signal)
    return runThroughHelper(name, args, options);
  return startProcess(name, args, ['ignore', 'pipe', 'pipe'], options).done;
}

/** runBinary's answer, the same errors included, for a binary the spawn helper starts. */
async function runThroughHelper(
  name: BinaryName,
  args: readonly string[],
  options: RunOptions,
): Promise<RunResult> {
  const { path: bin } = resolveBinary(name);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const run = dieWithParent(bin, args);
  const result = await runInHelper({ command: run.command, args: run.args, timeoutMs });
  const stderr = new TailBuffer();
  stderr.push(result.stderr);
  const failure =
    result.failure &&
    Object.assign(new Error(result.failure.message), {
      syscall: result.failure.syscall,
      code: result.failure.code,
    });
  return settle(name, args, timeoutMs, { ...result, stderrTail: stderr.toString(), failure });
}

/** How a process ended and what it printed. */
interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderrTail: string;
  timedOut: boolean;
  aborted?: boolean;
  /** It could not be started, or its stdout consumer threw. */
  failure?: Error;
}

/**
 * The answer for a process that ended so: its output, or the one error that says why — the same
 * whether it ran as our child or the spawn helper's.
 */
function settle(name: BinaryName, args: readonly string[], timeoutMs: number, ending: Ending): RunResult {
  const { code, stderrTail: tail, failure } = ending;
  if (failure) throw failure instanceof FfmpegProcessError ? failure : wrap(failure, args, code, tail);
  if (ending.timedOut)
    throw new FfmpegProcessError(`${name} timed out after ${timeoutMs} ms`, args, code, tail, true);
  if (ending.aborted) throw new FfmpegProcessError(`${name} was aborted`, args, code, tail);
  if (code !== 0)
    throw new FfmpegProcessError(`${name} exited with ${code ?? ending.signal}`, args, code, tail);
  return { stdout: ending.stdout, stderrTail: tail };
}

export interface LinkedRun {
  name: BinaryName;
  args: readonly string[];
  options?: Omit<RunOptions, 'signal' | 'timeoutMs'>;
}

/**
 * Runs two processes where the first writes a stream to its fd 3 (`pipe:3`) and the second reads
 * it as stdin (`pipe:0`); the kernel pipe joins them, Node never copies the bytes. When one fails
 * the other is killed at once (nobody waits on a dead pipe) and the first failure is reported.
 */
export async function runLinked(
  producer: LinkedRun,
  consumer: LinkedRun,
  options: Pick<RunOptions, 'signal' | 'timeoutMs'> = {},
): Promise<[RunResult, RunResult]> {
  const first = startProcess(producer.name, producer.args, ['ignore', 'pipe', 'pipe', 'pipe'], {
    ...producer.options,
    ...options,
  });
  const link = first.child.stdio[3] as Readable;
  const second = startProcess(consumer.name, consumer.args, [link, 'pipe', 'pipe'], {
    ...consumer.options,
    ...options,
  });
  // The consumer holds its own copy of the read end; ours would only keep the pipe alive.
  link.destroy();

  let firstFailure: unknown;
  const watch = (run: Started, other: Started) =>
    run.done.catch((err: unknown) => {
      firstFailure ??= err;
      other.child.kill('SIGKILL');
      throw err;
    });
  const results = await Promise.allSettled([watch(first, second), watch(second, first)]);
  if (results.some((r) => r.status === 'rejected')) {
    // A timeout explains everything else that went wrong; otherwise the earliest failure is the cause.
    const timeout = results.find(
      (r) => r.status === 'rejected' && r.reason instanceof FfmpegProcessError && r.reason.timedOut,
    ) as PromiseRejectedResult | undefined;
    throw timeout ? timeout.reason : firstFailure;
  }
  return results.map((r) => (r as PromiseFulfilledResult<RunResult>).value) as [RunResult, RunResult];
}

interface Started {
  child: ChildProcess;
  done: Promise<RunResult>;
}

function startProcess(
  name: BinaryName,
  args: readonly string[],
  stdio: StdioOptions,
  options: RunOptions,
): Started {
  const { path: bin } = resolveBinary(name);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const run = dieWithParent(bin, args);
  const child = spawn(run.command, run.args, { stdio });
  const done = new Promise<RunResult>((resolve, reject) => {
    const stderr = new TailBuffer();
    const stdoutChunks: Buffer[] = [];
    let timedOut = false;
    let aborted = false;
    let spawnError: Error | undefined;

    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout?.on('data', (chunk: Buffer) => {
      if (options.onStdout) {
        try {
          options.onStdout(chunk);
        } catch (err) {
          spawnError = err as Error;
          child.kill('SIGKILL');
        }
      } else stdoutChunks.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (err) => {
      spawnError = err;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const ending = {
        code,
        signal,
        stdout: Buffer.concat(stdoutChunks),
        stderrTail: stderr.toString(),
        timedOut,
        aborted,
        failure: spawnError,
      };
      try {
        resolve(settle(name, args, timeoutMs, ending));
      } catch (err) {
        reject(err);
      }
    });
  });
  return { child, done };
}

function wrap(err: Error, args: readonly string[], code: number | null, tail: string): Error {
  // Only a failed spawn (ENOENT, EACCES…) carries a syscall; anything else came from the stdout
  // consumer and is the caller's own error (e.g. a typed MediaError): keep it as it is.
  if (typeof (err as NodeJS.ErrnoException).syscall !== 'string') return err;
  return new FfmpegProcessError(`could not run the binary: ${err.message}`, args, code, tail);
}
