import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { EarshotError } from '@earshot/common/errors';
import { createModuleWorker } from '@earshot/common/module-worker';
import type { Ffmpeg, FfmpegPaths } from '../ffmpeg/ffmpeg.ts';
import { WorkerThreadError } from '../worker-errors.ts';
import type { AnalyzeClipOptions, ClipAnalysis } from './analyze-clip.ts';
import type { ClipReply, ClipRequest } from './clip-protocol.ts';

interface Job {
  request: ClipRequest;
  resolve: (result: ClipAnalysis) => void;
  reject: (error: Error) => void;
  queuedAt: number;
  startedAt: number;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

/**
 * Running totals of the pool's clips, in milliseconds, so a caller (the API's /metrics) can tell
 * where a clip's time goes: waiting for a thread, decoding, analysing, and the rest of the trip
 * to and from the thread (message passing, the thread's scheduling).
 */
export interface ClipPoolStats {
  /** Clips answered (analyzed or refused). */
  clips: number;
  waitMs: number;
  decodeMs: number;
  analysisMs: number;
  /** From the post to the thread to its reply: decode + analysis + message passing. */
  threadMs: number;
}

export interface ClipPoolOptions {
  /**
   * How much lower than the creating thread's scheduling priority the analysis threads run (Linux
   * nice steps, per thread; default CLIP_THREAD_NICENESS). The event loop that receives and
   * answers requests then preempts a clip's analysis, so one thread per core can analyze clips
   * while other requests keep their latency. 0 keeps the caller's priority.
   */
  niceness?: number;
  /**
   * The binaries the threads run for the files the in-process decoder leaves to ffmpeg: each thread
   * makes its own Ffmpeg with this one's paths (default: those on PATH, else npm's).
   */
  ffmpeg?: Ffmpeg;
}

/** `analyze` on a pool that was closed, or a job still waiting when it closed. */
export class ClipPoolClosedError extends Error {
  constructor() {
    super('the clip analysis pool is closed');
    this.name = 'ClipPoolClosedError';
  }
}

/**
 * Nice steps below the event loop for the analysis threads: the lowest priority, so the event
 * loop, and the database that answers its queries, always come first; a clip on an otherwise idle
 * core runs as fast as at 0.
 */
export const CLIP_THREAD_NICENESS = 19;

/**
 * Analyzes clips in worker threads, one clip per thread at a time, so a server's event loop keeps
 * answering other requests while a clip is analyzed (analysis is CPU-bound). Threads start on
 * first use and stay, at a lower scheduling priority than their creator; jobs beyond `size` wait
 * and are served in arrival order.
 */
export class ClipAnalysisPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly totals: ClipPoolStats = { clips: 0, waitMs: 0, decodeMs: 0, analysisMs: 0, threadMs: 0 };
  private readonly niceness: number;
  private readonly ffmpegPaths: FfmpegPaths;

  constructor(
    readonly size = 1,
    options: ClipPoolOptions = {},
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`pool size must be a positive integer, got ${size}`);
    this.niceness = options.niceness ?? CLIP_THREAD_NICENESS;
    this.ffmpegPaths = options.ffmpeg?.paths ?? {};
  }

  /** Jobs waiting for a free thread (not counting those running). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Totals since the pool started (a copy). */
  stats(): ClipPoolStats {
    return { ...this.totals };
  }

  /** Analyzes a clip in one of the pool's threads (`options.ffmpeg` is not used: the pool's is). */
  analyze(file: string, options: AnalyzeClipOptions = {}): Promise<ClipAnalysis> {
    if (this.closed) return Promise.reject(new ClipPoolClosedError());
    const { ffmpeg: _ffmpeg, ...sent } = options;
    return new Promise((resolve, reject) => {
      const request = { id: this.nextId++, file, options: sent };
      this.queue.push({ request, resolve, reject, queuedAt: performance.now(), startedAt: 0 });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new ClipPoolClosedError());
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === undefined);
      if (!slot && this.slots.length < this.size) slot = this.start();
      if (!slot) return;
      const job = this.queue.shift() as Job;
      job.startedAt = performance.now();
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(job.request);
    }
  }

  private count(job: Job, reply: ClipReply): void {
    const now = performance.now();
    this.totals.clips++;
    this.totals.waitMs += job.startedAt - job.queuedAt;
    this.totals.threadMs += now - job.startedAt;
    if (reply.ok) {
      this.totals.decodeMs += reply.result.timings.decodeMs;
      this.totals.analysisMs += reply.result.timings.analysisMs;
    }
  }

  private start(): Slot {
    const worker = createModuleWorker(new URL('./clip.worker.ts', import.meta.url), {
      workerData: { priority: threadPriority(this.niceness), ffmpeg: this.ffmpegPaths },
    });
    // An idle pool must not keep a process (a CLI command, a test) alive; a busy thread does.
    worker.unref();
    const slot: Slot = { worker, job: undefined };
    worker.on('message', (reply: ClipReply) => {
      const job = slot.job;
      slot.job = undefined;
      slot.worker.unref();
      if (job && job.request.id === reply.id) {
        this.count(job, reply);
        if (reply.ok) job.resolve(reply.result);
        else {
          const { message, code, status } = reply.error;
          job.reject(
            code && status
              ? new EarshotError(message, code, status)
              : new WorkerThreadError('clip-analysis', message),
          );
        }
      }
      this.dispatch();
    });
    const fail = (error: Error) => {
      // A thread that died takes its job with it; the next job starts a fresh thread.
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      slot.job?.reject(error);
      slot.job = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (error) =>
      fail(new WorkerThreadError('clip-analysis', `clip analysis thread failed: ${error.message}`)),
    );
    worker.on('exit', (code) => {
      if (this.slots.includes(slot))
        fail(new WorkerThreadError('clip-analysis', `clip analysis thread exited with code ${code}`, code));
    });
    this.slots.push(slot);
    return slot;
  }
}

/**
 * The nice value an analysis thread sets on itself: `niceness` steps below the calling thread's
 * (capped at 19, the lowest), or undefined to leave it.
 */
function threadPriority(niceness: number): number | undefined {
  if (niceness <= 0) return undefined;
  try {
    return Math.min(19, os.getPriority(0) + niceness);
  } catch {
    return undefined;
  }
}
