import type { Worker } from 'node:worker_threads';
import { createTsWorker } from '@earshot/common';
import type { EssentiaRequest, EssentiaResponse, EssentiaResult } from './essentia-protocol.ts';

/**
 * Main-thread adapter for the essentia.js worker: one long-lived worker shared by all analyses (loading
 * the WASM module costs more than a short sound's analysis), unref'd so it never keeps the process alive.
 * essentia.js's algorithms run at 44.1 kHz only; other rates get the neutral result.
 */
let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (r: EssentiaResult) => void; reject: (e: Error) => void }>();

/** Signals longer than this get a fresh worker afterwards: the WASM heap grows to the largest input and never shrinks. */
const RECYCLE_AFTER_SAMPLES = 44100 * 180;

function getWorker(): Worker {
  if (worker) return worker;
  const w = createTsWorker(new URL('./essentia-worker.ts', import.meta.url));
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

export const NEUTRAL_ESSENTIA_RESULT: EssentiaResult = {
  bpm: 0,
  bpmConfidence: 0,
  ticks: [],
  bpmIntervals: [],
  key: 'C',
  scale: 'major',
  keyStrength: 0,
};

/** essentia.js names some keys with flats; the contract spells every root with sharps. */
const FLAT_TO_SHARP: Record<string, string> = { Db: 'C#', Eb: 'D#', Gb: 'F#', Ab: 'G#', Bb: 'A#' };

/** Rhythm (RhythmExtractor2013, degara) and key (KeyExtractor) of a mono signal. */
export async function essentiaWholeSignal(signal: Float32Array, sampleRate: number): Promise<EssentiaResult> {
  // Below ~1 s the rhythm extractor has nothing to track and its internal frames underflow.
  if (sampleRate !== 44100 || signal.length < sampleRate) return NEUTRAL_ESSENTIA_RESULT;
  const w = getWorker();
  const id = nextId++;
  const request: EssentiaRequest = { id, signal, sampleRate };
  const result = new Promise<EssentiaResult>((resolve, reject) => pending.set(id, { resolve, reject }));
  w.ref();
  w.postMessage(request);
  try {
    const r = await result;
    return { ...r, key: FLAT_TO_SHARP[r.key] ?? r.key };
  } finally {
    if (pending.size === 0) w.unref();
    if (signal.length > RECYCLE_AFTER_SAMPLES) await stopEssentiaWorker();
  }
}

/** Terminates the worker (tests and the CLI call it before exiting; the next call starts a new one). */
export async function stopEssentiaWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
}
