import PFFFT from '@echogarden/pffft-wasm/simd';

/**
 * A float32 real FFT by PFFFT (its WebAssembly SIMD build), several times cheaper than fft.js's float64
 * one. It serves the clip queries (the magnitudes they keep are float32 anyway; its rounding, about 1e-7
 * of the frame's peak, moves a clip's statistics far less than the clip's frame stride does) and the
 * stored analysis's kernels whose reference is float32 and whose values are ours to define: the beat
 * tracker's detection functions, OnsetRate, the tonal and key frames and the loop estimate. The
 * low-level frames of stored analyses keep fft.js, so the values clip queries compare with do not move.
 */

interface PffftModule {
  HEAPF32: Float32Array;
  _pffft_new_setup(size: number, kind: number): number;
  _pffft_aligned_malloc(bytes: number): number;
  _pffft_transform_ordered(
    setup: number,
    input: number,
    output: number,
    work: number,
    direction: number,
  ): void;
}

const PFFFT_REAL = 0;
const PFFFT_FORWARD = 0;
const PFFFT_BACKWARD = 1;

let loaded: PffftModule | undefined;
let loading: Promise<PffftModule> | undefined;

/** Loads the WebAssembly module once per thread (about a millisecond; later calls are free). */
export async function loadFloat32Fft(): Promise<void> {
  loading ??= (PFFFT() as Promise<PffftModule>).then((module) => {
    loaded = module;
    return module;
  });
  await loading;
}

export function float32FftLoaded(): boolean {
  return loaded !== undefined;
}

/**
 * A float32 FFT asked for before `loadFloat32Fft()` finished (its WebAssembly module loads
 * asynchronously): the lean analysis's `float32Fft` option needs that call first.
 */
export class Float32FftNotLoadedError extends Error {
  constructor() {
    super('loadFloat32Fft() must finish before a Float32RealFft is made');
    this.name = 'Float32FftNotLoadedError';
  }
}

/** One transform size's setup and buffers in the module's memory, kept for the thread's life. */
export class Float32RealFft {
  private readonly module: PffftModule;
  private readonly setup: number;
  private readonly inputPtr: number;
  private readonly outputPtr: number;
  private readonly workPtr: number;
  private cached?: { heap: Float32Array; input: Float32Array; output: Float32Array };

  constructor(readonly size: number) {
    if (!loaded) throw new Float32FftNotLoadedError();
    // PFFFT's SIMD real transform takes multiples of 32 points.
    if (size % 32 !== 0)
      throw new RangeError(`a float32 real FFT needs a multiple of 32 points, got ${size}`);
    this.module = loaded;
    this.setup = loaded._pffft_new_setup(size, PFFFT_REAL);
    this.inputPtr = loaded._pffft_aligned_malloc(size * 4);
    this.outputPtr = loaded._pffft_aligned_malloc(size * 4);
    this.workPtr = loaded._pffft_aligned_malloc(size * 4);
  }

  /** Where to write the next input (a view of the module's memory: refetch it before each use). */
  input(): Float32Array {
    return this.views().input;
  }

  /**
   * Transforms the input; the answer (a view, valid until the next call) holds DC and Nyquist
   * first, then the real and imaginary parts of bins 1 … size/2 − 1.
   */
  forward(): Float32Array {
    this.module._pffft_transform_ordered(
      this.setup,
      this.inputPtr,
      this.outputPtr,
      this.workPtr,
      PFFFT_FORWARD,
    );
    return this.output();
  }

  /**
   * The inverse of forward() for a spectrum written into input() in forward()'s layout: the answer
   * (a view, valid until the next call) is `size` times the signal, as PFFFT does not scale.
   */
  inverse(): Float32Array {
    this.module._pffft_transform_ordered(
      this.setup,
      this.inputPtr,
      this.outputPtr,
      this.workPtr,
      PFFFT_BACKWARD,
    );
    return this.output();
  }

  private output(): Float32Array {
    return this.views().output;
  }

  /**
   * The buffers' views, made again only when the module's memory has grown (it then replaces HEAPF32):
   * a kernel asks for them every frame, and a view per frame is garbage the collector has to sweep.
   */
  private views(): { input: Float32Array; output: Float32Array } {
    const heap = this.module.HEAPF32;
    if (this.cached?.heap !== heap) {
      const input = this.inputPtr >> 2;
      const output = this.outputPtr >> 2;
      this.cached = {
        heap,
        input: heap.subarray(input, input + this.size),
        output: heap.subarray(output, output + this.size),
      };
    }
    return this.cached;
  }
}

/** The real part of bin k (0 … size/2) in forward()'s layout: DC and Nyquist first, then (re, im) of bin k at 2k. */
export const binRe = (out: Float32Array, k: number, size: number): number =>
  k === 0 ? out[0] : 2 * k === size ? out[1] : out[2 * k];

/** The imaginary part of bin k (0 … size/2) in forward()'s layout: 0 for DC and Nyquist. */
export const binIm = (out: Float32Array, k: number, size: number): number =>
  k === 0 || 2 * k === size ? 0 : out[2 * k + 1];

const shared = new Map<number, Float32RealFft>();

/**
 * This thread's transform of `size` points, made on first use: a transform's setup and buffers stay in
 * the module's memory for the thread's life, so kernels that run once per analysis share one per size
 * rather than make one per call. Its buffers hold until the next use of that size: a kernel is done with
 * them before it returns.
 */
export function sharedFloat32Fft(size: number): Float32RealFft {
  let fft = shared.get(size);
  if (!fft) {
    fft = new Float32RealFft(size);
    shared.set(size, fft);
  }
  return fft;
}
