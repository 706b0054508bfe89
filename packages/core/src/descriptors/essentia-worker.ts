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

/**
 * Each algorithm runs on its own: essentia throws on material it cannot track (e.g. "Empty vector input"
 * when no onset survives), and a failed rhythm must not cost the key, or the reverse.
 */
function analyse(request: EssentiaRequest): EssentiaResult {
  const start = performance.now();
  const input = essentia.arrayToVector(request.signal);
  const result: EssentiaResult = {
    bpm: 0,
    bpmConfidence: 0,
    ticks: [],
    bpmIntervals: [],
    key: 'C',
    scale: 'major',
    keyStrength: 0,
  };
  try {
    try {
      const rhythm = essentia.RhythmExtractor2013(input, 208, 'degara', 40);
      result.ticks = take(rhythm.ticks);
      take(rhythm.estimates);
      result.bpmIntervals = take(rhythm.bpmIntervals);
      result.bpm = rhythm.bpm;
      result.bpmConfidence = rhythm.confidence;
    } catch {
      // No beat grid: the neutral values stay.
    }
    try {
      const key = essentia.KeyExtractor(input);
      result.key = key.key;
      result.scale = key.scale;
      result.keyStrength = key.strength;
    } catch {
      // No tonal content: the neutral key with strength 0 stays.
    }
  } finally {
    input.delete();
  }
  result.elapsedMs = performance.now() - start;
  return result;
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
