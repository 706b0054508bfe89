import type { Worker } from 'node:worker_threads';
import { createModuleWorker } from '@earshot/common';
import type { EssentiaRequest, EssentiaResponse, EssentiaResult, RhythmChunk } from './essentia-protocol.ts';

/**
 * Main-thread adapter for the essentia.js worker: one long-lived worker shared by all analyses (loading
 * the WASM module costs more than a short sound's analysis), unref'd so it never keeps the process alive.
 * The signal goes over in chunks of at most CHUNK_SECONDS, each copied once and transferred, so the
 * worker's WASM heap (which never shrinks) holds one chunk whatever the sound's length.
 */
let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (r: RhythmChunk) => void; reject: (e: Error) => void }>();

const CHUNK_SECONDS = 60;
/** Chunks overlap so a beat near a boundary is tracked with context on both sides. */
const OVERLAP_SECONDS = 4;

function getWorker(): Worker {
  if (worker) return worker;
  const w = createModuleWorker(new URL('./essentia-worker.ts', import.meta.url));
  w.unref();
  w.on('message', (message: EssentiaResponse) => {
    const entry = pending.get(message.id);
    if (!entry) return;
    pending.delete(message.id);
    if ('error' in message) entry.reject(new Error(`essentia.js: ${message.error}`));
    else entry.resolve(message.result);
  });
  const fail = (err: Error) => {
    for (const entry of pending.values()) entry.reject(err);
    pending.clear();
    if (worker === w) worker = undefined;
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`essentia.js worker exited with code ${code}`)));
  worker = w;
  return w;
}

async function trackChunk(
  signal: Float32Array,
  from: number,
  to: number,
  sampleRate: number,
): Promise<RhythmChunk> {
  const w = getWorker();
  const id = nextId++;
  const chunk = signal.slice(from, to);
  const request: EssentiaRequest = { id, signal: chunk, sampleRate };
  const result = new Promise<RhythmChunk>((resolve, reject) => pending.set(id, { resolve, reject }));
  w.ref();
  w.postMessage(request, [chunk.buffer]);
  try {
    return await result;
  } finally {
    if (pending.size === 0) w.unref();
  }
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

/**
 * Beats and tempo (RhythmExtractor2013, degara) of a mono signal. Each chunk keeps the beats of its own
 * middle part (the overlap is split halfway); the tempo is the median of the chunks' tempi.
 */
export async function essentiaWholeSignal(signal: Float32Array, sampleRate: number): Promise<EssentiaResult> {
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
    const r = await trackChunk(signal, from, to, sampleRate);
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

/** Terminates the worker (tests and the CLI call it before exiting; the next call starts a new one). */
export async function stopEssentiaWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
}
