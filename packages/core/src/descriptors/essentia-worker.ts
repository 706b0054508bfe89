// Worker-thread side of the essentia.js adapter. essentia.js installs process-wide exception handlers
// when loaded, so it lives only in this thread. It runs the whole-signal beat tracker on one chunk per
// request; every vector the WASM side returns is freed before replying.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type { EssentiaRequest, EssentiaResponse, RhythmChunk } from './essentia-protocol.ts';

interface WasmVector {
  delete(): void;
}
interface EssentiaApi {
  arrayToVector(a: Float32Array): WasmVector;
  vectorToArray(v: WasmVector): Float32Array;
  RhythmExtractor2013(
    signal: WasmVector,
    maxTempo: number,
    method: string,
    minTempo: number,
  ): { bpm: number; ticks: WasmVector; confidence: number; estimates: WasmVector; bpmIntervals: WasmVector };
}

const require = createRequire(import.meta.url);
const { Essentia, EssentiaWASM } = require('essentia.js') as {
  Essentia: new (wasm: unknown) => EssentiaApi;
  EssentiaWASM: unknown;
};
const essentia = new Essentia(EssentiaWASM);

function take(vector: WasmVector): number[] {
  try {
    return Array.from(essentia.vectorToArray(vector));
  } finally {
    vector.delete();
  }
}

/** essentia throws on material it cannot track (e.g. "Empty vector input" when no onset survives): no beats then. */
function rhythm(request: EssentiaRequest): RhythmChunk {
  const start = performance.now();
  const result: RhythmChunk = { bpm: 0, bpmConfidence: 0, ticks: [], elapsedMs: 0 };
  const input = essentia.arrayToVector(request.signal);
  try {
    const r = essentia.RhythmExtractor2013(input, 208, 'degara', 40);
    result.ticks = take(r.ticks);
    take(r.estimates);
    take(r.bpmIntervals);
    result.bpm = r.bpm;
    result.bpmConfidence = r.confidence;
  } catch {
    // No beat grid: the neutral values stay.
  } finally {
    input.delete();
  }
  result.elapsedMs = performance.now() - start;
  return result;
}

parentPort?.on('message', (request: EssentiaRequest) => {
  let response: EssentiaResponse;
  try {
    response = { id: request.id, result: rhythm(request) };
  } catch (err) {
    response = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(response);
});
