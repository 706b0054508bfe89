import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { CoreLogger } from '../logger.ts';
import { type BinaryName, binaryVersion, type ResolvedBinary, resolveBinary } from './binaries.ts';
import { FfmpegProcessError } from './errors.ts';
import { dieWithParent } from './parent-death.ts';
import { SpawnHelper } from './spawn-helper.ts';
import { TailBuffer } from './tail-buffer.ts';

export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export interface FfmpegOptions {
  /** The ffmpeg binary. Default: `ffmpeg` on PATH, else the one @ffmpeg-installer/ffmpeg ships. */
  ffmpegPath?: string;
  /** The ffprobe binary. Default: `ffprobe` on PATH, else the one @ffprobe-installer/ffprobe ships. */
  ffprobePath?: string;
  /**
   * Start ffprobe runs from a small helper process instead of this one (default false). A server
   * whose process is large turns it on: forking a large process blocks its event loop while the
   * kernel copies its page tables. See spawn-helper.ts.
   */
  spawnHelper?: boolean;
  /**
   * Told once per binary which path and version this instance uses (the version is asked of the
   * binary in the background). Default: nothing is logged.
   */
  logger?: CoreLogger;
}

/** The binaries an Ffmpeg was told to use: what a worker thread needs to make its own. */
export type FfmpegPaths = Pick<FfmpegOptions, 'ffmpegPath' | 'ffprobePath'>;

export interface RunOptions {
  /** Kill the process (SIGKILL) after this long (default 10 minutes); every run has a limit. */
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

export interface LinkedRun {
  name: BinaryName;
  args: readonly string[];
  options?: Omit<RunOptions, 'signal' | 'timeoutMs'>;
}

/**
 * The ffmpeg and ffprobe one user of the core runs, and the one place that starts them. Every
 * function that runs ffmpeg takes an `ffmpeg` option; without it, the process-wide default
 * (`defaultFfmpeg()`: the binaries on PATH, else npm's, no spawn helper, no logging) is used. Two
 * users in one process who need different binaries, a logger or the spawn helper each make their
 * own. Binaries are found on first use (a file lookup, no process) and kept for the instance's life.
 *
 * Spawns directly (not through fluent-ffmpeg) because the pipeline needs one input fanned out to
 * several outputs plus raw pipes, two processes linked by a pipe, a hard timeout on every process
 * and the stderr tail in the error; fluent-ffmpeg's ffprobe has no timeout at all.
 */
export class Ffmpeg {
  readonly #options: FfmpegOptions;
  readonly #resolved = new Map<BinaryName, ResolvedBinary>();
  readonly #versions = new Map<BinaryName, Promise<string | undefined>>();
  #helper: SpawnHelper | undefined;

  constructor(options: FfmpegOptions = {}) {
    this.#options = { ...options };
  }

  /** The paths this instance was given (undefined: found on PATH or from npm). */
  get paths(): FfmpegPaths {
    return { ffmpegPath: this.#options.ffmpegPath, ffprobePath: this.#options.ffprobePath };
  }

  /**
   * The binary this instance runs for `name`, found on first call (throws FfmpegNotFoundError when
   * there is none). The first call also tells the logger, once the binary has said its version.
   */
  binary(name: BinaryName): ResolvedBinary {
    const known = this.#resolved.get(name);
    if (known) return known;
    const resolved = resolveBinary(
      name,
      name === 'ffmpeg' ? this.#options.ffmpegPath : this.#options.ffprobePath,
    );
    this.#resolved.set(name, resolved);
    const logger = this.#options.logger;
    if (logger && logger.isLevelEnabled?.('info') !== false) {
      void this.version(name).then((version) =>
        logger.info({ binary: name, ...resolved, version: version ?? 'unknown' }, `using ${name}`),
      );
    }
    return resolved;
  }

  /** What the binary says its version is (`-version`, asked once), or undefined when it does not run. */
  version(name: BinaryName): Promise<string | undefined> {
    let known = this.#versions.get(name);
    if (!known) {
      known = binaryVersion(this.binary(name).path);
      this.#versions.set(name, known);
    }
    return known;
  }

  /**
   * Runs `name args` to its end: resolves with what it printed, rejects with FfmpegProcessError
   * (exit status, timeout, abort; the tail of stderr inside) or with the error `onStdout` threw.
   */
  run(name: BinaryName, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    // ffprobe (short, its output collected) goes through the spawn helper where the user opted in.
    if (name === 'ffprobe' && this.#options.spawnHelper && !options.onStdout && !options.signal)
      return this.#runThroughHelper(name, args, options);
    return this.#start(name, args, ['ignore', 'pipe', 'pipe'], options).done;
  }

  /**
   * Runs two processes where the first writes a stream to its fd 3 (`pipe:3`) and the second reads
   * it as stdin (`pipe:0`); the kernel pipe joins them, Node never copies the bytes. When one fails
   * the other is killed at once (nobody waits on a dead pipe) and the first failure is reported.
   */
  async runLinked(
    producer: LinkedRun,
    consumer: LinkedRun,
    options: Pick<RunOptions, 'signal' | 'timeoutMs'> = {},
  ): Promise<[RunResult, RunResult]> {
    const first = this.#start(producer.name, producer.args, ['ignore', 'pipe', 'pipe', 'pipe'], {
      ...producer.options,
      ...options,
    });
    const link = first.child.stdio[3] as Readable;
    const second = this.#start(consumer.name, consumer.args, [link, 'pipe', 'pipe'], {
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

  /** The spawn helper's process id while it runs (diagnostics and tests). */
  get spawnHelperPid(): number | undefined {
    return this.#helper?.pid;
  }

  /** Stops the spawn helper, if one runs (the next ffprobe starts another). Runs under way fail. */
  close(): void {
    this.#helper?.stop();
    this.#helper = undefined;
  }

  /** run's answer, the same errors included, for a binary the spawn helper starts. */
  async #runThroughHelper(
    name: BinaryName,
    args: readonly string[],
    options: RunOptions,
  ): Promise<RunResult> {
    const { path: bin } = this.binary(name);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const run = dieWithParent(bin, args);
    const result = await this.#spawnHelper().run({ command: run.command, args: run.args, timeoutMs });
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

  /** The helper, started on first use and again after it died. */
  #spawnHelper(): SpawnHelper {
    if (this.#helper) return this.#helper;
    const helper = new SpawnHelper();
    helper.onGone = () => {
      if (this.#helper === helper) this.#helper = undefined;
    };
    this.#helper = helper;
    return helper;
  }

  #start(name: BinaryName, args: readonly string[], stdio: StdioOptions, options: RunOptions): Started {
    const { path: bin } = this.binary(name);
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
}

let shared: Ffmpeg | undefined;

/**
 * The Ffmpeg used where a caller passes none: the binaries on PATH (else npm's), no spawn helper,
 * no logger. Made on first use.
 */
export function defaultFfmpeg(): Ffmpeg {
  shared ??= new Ffmpeg();
  return shared;
}

interface Started {
  child: ChildProcess;
  done: Promise<RunResult>;
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

function wrap(err: Error, args: readonly string[], code: number | null, tail: string): Error {
  // Only a failed spawn (ENOENT, EACCES…) carries a syscall; anything else came from the stdout
  // consumer and is the caller's own error (e.g. a typed MediaError): keep it as it is.
  if (typeof (err as NodeJS.ErrnoException).syscall !== 'string') return err;
  return new FfmpegProcessError(`could not run the binary: ${err.message}`, args, code, tail);
}
