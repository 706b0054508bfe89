/**
 * A thin handle on essentia.js (Essentia 2.1-beta6-dev compiled to WebAssembly, the native extractor's
 * version): turns arrays into its vectors and back, frees every vector it returns. Every essentia.js call
 * creates, configures and deletes its algorithm, so a kernel with state across frames (Flux,
 * TuningFrequency, StartStopSilence) restarts on each call: the extractor uses essentia.js's whole-signal
 * extractors for those, which run the reference's streaming network inside one call.
 */
import { createRequire } from 'node:module';

export interface WasmVector {
  size(): number;
  get(i: number): unknown;
  push_back(x: unknown): void;
  delete(): void;
  isDeleted(): boolean;
}

/** An essentia.js algorithm: positional arguments as its documented signature, an object of outputs. */
type Algorithm = (...args: unknown[]) => Record<string, unknown>;

interface EssentiaInstance {
  arrayToVector(a: Float32Array): WasmVector;
  vectorToArray(v: WasmVector): Float32Array;
  /** The WebAssembly side itself: called directly where the JS wrapper drops vector parameters. */
  algorithms: Record<string, Algorithm>;
  [algorithm: string]: unknown;
}

/** Thrown when an essentia.js algorithm throws (Essentia's C++ exceptions reach JS as bare numbers). */
export class EssentiaJsError extends Error {
  constructor(
    readonly algorithm: string,
    cause: unknown,
  ) {
    super(
      `essentia.js ${algorithm}: ${cause instanceof Error ? cause.message : `exception ${String(cause)}`}`,
      {
        cause,
      },
    );
    this.name = 'EssentiaJsError';
  }
}

function guarded<T>(algorithm: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw new EssentiaJsError(algorithm, error);
  }
}

export class EssentiaJs {
  private readonly instance: EssentiaInstance;

  constructor() {
    const require = createRequire(import.meta.url);
    const { Essentia, EssentiaWASM } = require('essentia.js') as {
      Essentia: new (wasm: unknown) => EssentiaInstance;
      EssentiaWASM: unknown;
    };
    this.instance = new Essentia(EssentiaWASM);
  }

  /** Runs one algorithm through the JS wrapper (its defaults fill the arguments left out). */
  run(name: string, ...args: unknown[]): Record<string, unknown> {
    const algorithm = this.instance[name] as Algorithm | undefined;
    if (typeof algorithm !== 'function') throw new Error(`essentia.js has no algorithm ${name}`);
    return guarded(name, () => algorithm.apply(this.instance, args));
  }

  /** Runs one algorithm on the WebAssembly side directly: every argument must be given. */
  runRaw(name: string, ...args: unknown[]): Record<string, unknown> {
    return guarded(name, () => this.instance.algorithms[name].apply(this.instance.algorithms, args));
  }

  vector(values: ArrayLike<number>): WasmVector {
    return this.instance.arrayToVector(values instanceof Float32Array ? values : Float32Array.from(values));
  }

  /** The values of a returned vector, which is freed. */
  take(vector: unknown): number[] {
    const v = vector as WasmVector;
    try {
      // essentia.js's vectorToArray refuses an empty vector (it throws the string "Empty vector input").
      return v.size() === 0 ? [] : Array.from(this.instance.vectorToArray(v));
    } finally {
      v.delete();
    }
  }

  /** The rows of a returned vector of vectors, which is freed with each row. */
  takeRows(vector: unknown): number[][] {
    const vv = vector as WasmVector;
    try {
      const rows: number[][] = [];
      for (let i = 0; i < vv.size(); i++) rows.push(this.take(vv.get(i)));
      return rows;
    } finally {
      vv.delete();
    }
  }

  /** Frees every vector among an algorithm's outputs that is not freed yet (the ones not taken). */
  free(outputs: Record<string, unknown>): void {
    for (const value of Object.values(outputs)) {
      const v = value as WasmVector | undefined;
      if (v && typeof v.delete === 'function' && !v.isDeleted()) v.delete();
    }
  }
}
