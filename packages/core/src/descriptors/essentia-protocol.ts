/** Messages between the main thread and the essentia.js worker thread. */
export interface EssentiaRequest {
  id: number;
  /** One chunk of the mono signal (transferred, not copied). */
  signal: Float32Array;
  sampleRate: number;
}

export interface RhythmChunk {
  bpm: number;
  /** RhythmExtractor2013 confidence, 0…5.32 (the degara method reports 0). */
  bpmConfidence: number;
  /** Beat positions within the chunk, seconds. */
  ticks: number[];
  /** Time the worker spent on the chunk (ms). */
  elapsedMs: number;
}

export type EssentiaResponse = { id: number; result: RhythmChunk } | { id: number; error: string };

/** The beat tracker's answer for a whole signal. */
export interface EssentiaResult {
  bpm: number;
  bpmConfidence: number;
  ticks: number[];
  bpmIntervals: number[];
  /** Time the worker spent, all chunks together (ms). */
  elapsedMs?: number;
}
