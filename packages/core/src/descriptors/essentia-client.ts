import type { Worker } from 'node:worker_threads';
import { createModuleWorker } from '@earshot/common/module-worker';
import { WorkerThreadError } from '../worker-errors.ts';
import type { EssentiaRequest, EssentiaResponse, EssentiaResult, RhythmChunk } from './essentia-protocol.ts';

/** The signal goes to the worker in chunks of at most this many seconds. */
const CHUNK_SECONDS = 60;
/** Chunks overlap so a beat near a boundary is tracked with context on both sides. */
const OVERLAP_SECONDS = 4;

/**
 * essentia.js's beat tracker (RhythmExtractor2013, degara) in a worker thread of its own, the
 * reference backend `analyzeSignal` uses with `rhythm: 'essentia'`. essentia.js installs
 * process-wide exception handlers when loaded, so it never runs in the caller's thread. The
 * thread starts on first use and is kept (loading the WASM module costs more than a short sound's
 * analysis), unref'd so it never keeps the process alive; `close` ends it. The signal goes over in
 * chunks of at most CHUNK_SECONDS, each copied once and transferred, so the worker's WASM heap
 * (which never shrinks) holds one chunk whatever the sound's length.
 */
export class EssentiaBeatTracker {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (r: RhythmChunk) => void; reject: (e: Error) => void }>();

  /**
   * Beats and tempo of a mono signal. Each chunk keeps the beats of its own middle part (the
   * overlap is split halfway); the tempo is the median of the chunks' tempi.
   */
  async track(signal: Float32Array, sampleRate: number): Promise<EssentiaResult> {
    // essentia's beat tracker runs at 44.1 kHz only; below ~1 s it has nothing to track.
    if (sampleRate !== 44100 || signal.length < sampleRate) return NEUTRAL_ESSENTIA_RESULT;
    const chunk = CHUNK_SECONDS * sampleRate;
    const overlap = OVERLAP_SECONDS * sampleRate;
    const ticks: number[] = [];
    const tempi: number[] = [];
    let confidence = 0;
    let elapsedMs = 0;
    for (let from = 0; from < signal.length; from += chunk - overlap) {
      const to = Math.min(signal.length, from + chunk);
      const r = await this.#trackChunk(signal, from, to, sampleRate);
      elapsedMs += r.elapsedMs;
      const keepFrom = from === 0 ? 0 : (from + overlap / 2) / sampleRate;
      const keepTo = to === signal.length ? Number.POSITIVE_INFINITY : (to - overlap / 2) / sampleRate;
      for (const t of r.ticks) {
        const time = t + from / sampleRate;
        if (time >= keepFrom && time < keepTo) ticks.push(time);
      }
      if (r.bpm > 0) tempi.push(r.bpm);
      confidence = Math.max(confidence, r.bpmConfidence);
      if (to === signal.length) break;
    }
    const bpmIntervals = ticks.slice(1).map((t, i) => t - ticks[i]);
    return { bpm: median(tempi), bpmConfidence: confidence, ticks, bpmIntervals, elapsedMs };
  }

  /** Terminates the thread; tracking under way fails, and the next `track` starts a new thread. */
  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = undefined;
    if (w) await w.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const w = createModuleWorker(new URL('./essentia-worker.ts', import.meta.url));
    w.unref();
    w.on('message', (message: EssentiaResponse) => {
      const entry = this.#pending.get(message.id);
      if (!entry) return;
      this.#pending.delete(message.id);
      if ('error' in message)
        entry.reject(new WorkerThreadError('essentia', `essentia.js: ${message.error}`));
      else entry.resolve(message.result);
    });
    const fail = (err: Error) => {
      for (const entry of this.#pending.values()) entry.reject(err);
      this.#pending.clear();
      if (this.#worker === w) this.#worker = undefined;
    };
    w.on('error', (err) =>
      fail(new WorkerThreadError('essentia', `essentia.js worker failed: ${err.message}`)),
    );
    w.on('exit', (code) =>
      fail(new WorkerThreadError('essentia', `essentia.js worker exited with code ${code}`, code)),
    );
    this.#worker = w;
    return w;
  }

  async #trackChunk(
    signal: Float32Array,
    from: number,
    to: number,
    sampleRate: number,
  ): Promise<RhythmChunk> {
    const w = this.#thread();
    const id = this.#nextId++;
    const chunk = signal.slice(from, to);
    const request: EssentiaRequest = { id, signal: chunk, sampleRate };
    const result = new Promise<RhythmChunk>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    w.ref();
    w.postMessage(request, [chunk.buffer]);
    try {
      return await result;
    } finally {
      if (this.#pending.size === 0) w.unref();
    }
  }
}

let shared: EssentiaBeatTracker | undefined;

/** The tracker `analyzeSignal` uses where the caller passes none; made on first use. */
export function defaultEssentiaBeatTracker(): EssentiaBeatTracker {
  shared ??= new EssentiaBeatTracker();
  return shared;
}

/**
 * Ends the default tracker's thread (a command calls it before exiting; the next analysis with
 * `rhythm: 'essentia'` starts a new one). Trackers a caller made are closed by their own `close`.
 */
export async function stopEssentiaWorker(): Promise<void> {
  await shared?.close();
}

export const NEUTRAL_ESSENTIA_RESULT: EssentiaResult = {
  bpm: 0,
  bpmConfidence: 0,
  ticks: [],
  bpmIntervals: [],
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[sorted.length >> 1] : 0;
}
