/** Messages between the main thread and the essentia.js worker thread. */
export interface EssentiaRequest {
  id: number;
  signal: Float32Array;
  sampleRate: number;
}

export interface EssentiaResult {
  bpm: number;
  /** RhythmExtractor2013 confidence, 0…5.32. */
  bpmConfidence: number;
  /** Beat positions, seconds. */
  ticks: number[];
  bpmIntervals: number[];
  key: string;
  scale: string;
  keyStrength: number;
  /** Time the worker spent on the request (ms). */
  elapsedMs?: number;
}

export type EssentiaResponse = { id: number; result: EssentiaResult } | { id: number; error: string };
