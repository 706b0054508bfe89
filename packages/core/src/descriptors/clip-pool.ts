import type { Worker } from 'node:worker_threads';
import { createTsWorker, EarshotError } from '@earshot/common';
import type { AnalyzeClipOptions, ClipAnalysis } from './analyze-clip.ts';
import type { ClipReply, ClipRequest } from './clip-protocol.ts';

interface Job {
  request: ClipRequest;
  resolve: (result: ClipAnalysis) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

/**
 * Analyzes clips in worker threads, one clip per thread at a time, so a server's event loop keeps
 * answering other requests while a clip is analyzed (analysis is CPU-bound: about a second of CPU
 * per minute of audio). Threads start on first use and stay; jobs beyond `size` wait in order.
 */
export class ClipAnalysisPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly size = 1) {
    if (!Number.isInteger(size) || size < 1)
      throw new Error(`pool size must be a positive integer, got ${size}`);
  }

  /** Jobs waiting for a free thread (not counting those running). */
  get waiting(): number {
    return this.queue.length;
  }

  analyze(file: string, options: AnalyzeClipOptions = {}): Promise<ClipAnalysis> {
    if (this.closed) return Promise.reject(new Error('the clip analysis pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, file, options }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the clip analysis pool is closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === undefined);
      if (!slot && this.slots.length < this.size) slot = this.start();
      if (!slot) return;
      const job = this.queue.shift() as Job;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(job.request);
    }
  }

  private start(): Slot {
    const worker = createTsWorker(new URL('./clip.worker.ts', import.meta.url));
    // An idle pool must not keep a process (a CLI command, a test) alive; a busy thread does.
    worker.unref();
    const slot: Slot = { worker, job: undefined };
    worker.on('message', (reply: ClipReply) => {
      const job = slot.job;
      slot.job = undefined;
      slot.worker.unref();
      if (job && job.request.id === reply.id) {
        if (reply.ok) job.resolve(reply.result);
        else {
          const { message, code, status } = reply.error;
          job.reject(code && status ? new EarshotError(message, code, status) : new Error(message));
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
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.slots.includes(slot)) fail(new Error(`clip analysis thread exited with code ${code}`));
    });
    this.slots.push(slot);
    return slot;
  }
}
