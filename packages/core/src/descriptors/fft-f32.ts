import PFFFT from '@echogarden/pffft-wasm/simd';

/**
 * A float32 real FFT by PFFFT (its WebAssembly SIMD build), for clip queries only: the transform
 * every frame of a clip pays costs several times less than fft.js's float64 one, and the
 * magnitudes it gives are stored as float32 anyway. Its rounding (about 1e-7 of the frame's peak)
 * moves a clip's statistics far less than the clip's frame stride does; stored analyses keep
 * fft.js, so their values do not move at all.
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

/** One transform size's setup and buffers in the module's memory (kept for the thread's life). */
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

export class Float32RealFft {
  private readonly module: PffftModule;
  private readonly setup: number;
  private readonly inputPtr: number;
  private readonly outputPtr: number;
  private readonly workPtr: number;

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
    const start = this.inputPtr >> 2;
    return this.module.HEAPF32.subarray(start, start + this.size);
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
    const start = this.outputPtr >> 2;
    return this.module.HEAPF32.subarray(start, start + this.size);
  }
}
