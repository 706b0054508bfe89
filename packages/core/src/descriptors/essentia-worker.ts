// Worker-thread side of the essentia.js adapter. essentia.js installs process-wide exception handlers
// when loaded, so it lives only in this thread. The algorithms used are whole-signal ones (rhythm and
// key): each call configures its C++ algorithm once for the whole signal, and every vector the WASM side
// returns is freed before replying.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type { EssentiaRequest, EssentiaResponse, EssentiaResult } from './essentia-protocol.ts';

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
  KeyExtractor(signal: WasmVector): { key: string; scale: string; strength: number };
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

function analyse(request: EssentiaRequest): EssentiaResult {
  const start = performance.now();
  const input = essentia.arrayToVector(request.signal);
  try {
    const rhythm = essentia.RhythmExtractor2013(input, 208, 'degara', 40);
    const ticks = take(rhythm.ticks);
    take(rhythm.estimates);
    const bpmIntervals = take(rhythm.bpmIntervals);
    const key = essentia.KeyExtractor(input);
    return {
      bpm: rhythm.bpm,
      bpmConfidence: rhythm.confidence,
      ticks,
      bpmIntervals,
      key: key.key,
      scale: key.scale,
      keyStrength: key.strength,
      elapsedMs: performance.now() - start,
    };
  } finally {
    input.delete();
  }
}

parentPort?.on('message', (request: EssentiaRequest) => {
  let response: EssentiaResponse;
  try {
    response = { id: request.id, result: analyse(request) };
  } catch (err) {
    response = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(response);
});
