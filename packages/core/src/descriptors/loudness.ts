/**
 * EBU R128 / ITU-R BS.1770-4 loudness of a mono signal (channel weight 1), written from the standard:
 * K-weighting (a high shelf then a high pass, coefficients derived for any sample rate via the bilinear
 * transform), 400 ms blocks with 75% overlap, absolute gate −70 LUFS, relative gate −10 LU for the
 * integrated loudness; loudness range (EBU Tech 3342) from 3 s short-term values with −20 LU relative
 * gate as the 10th–95th percentile spread.
 */

export interface LoudnessResult {
  integrated: number;
  loudnessRange: number;
  /** Momentary loudness (400 ms) every 100 ms, LUFS (floored at −70 for digital silence). */
  momentary: Float32Array;
  /** Short-term loudness (3 s) every 100 ms, LUFS. */
  shortTerm: Float32Array;
}

const ABSOLUTE_GATE = -70;

interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

function kWeightingStages(sampleRate: number): [Biquad, Biquad] {
  // Stage 1: high shelf (+4 dB above ~1.7 kHz), the head's acoustic effect.
  let f0 = 1681.974450955533;
  const gainDb = 3.999843853973347;
  let q = 0.7071752369554196;
  let k = Math.tan((Math.PI * f0) / sampleRate);
  const vh = 10 ** (gainDb / 20);
  const vb = vh ** 0.4996667741545416;
  let a0 = 1 + k / q + k * k;
  const shelf: Biquad = {
    b0: (vh + (vb * k) / q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q + k * k) / a0,
  };
  // Stage 2: the RLB high pass at ~38 Hz.
  f0 = 38.13547087602444;
  q = 0.5003270373238773;
  k = Math.tan((Math.PI * f0) / sampleRate);
  a0 = 1 + k / q + k * k;
  const highPass: Biquad = { b0: 1, b1: -2, b2: 1, a1: (2 * (k * k - 1)) / a0, a2: (1 - k / q + k * k) / a0 };
  return [shelf, highPass];
}

/**
 * Streams interleaved samples of any channel count through per-channel K-weighting and sums the
 * channel-weighted power per 100 ms step (BS.1770 weights: 1 for front channels, 1.41 for surrounds,
 * 0 for LFE in the 5.1 order FL FR FC LFE BL BR). Memory is one number per 100 ms, whatever the length.
 */
export class KWeightedSteps {
  private readonly stages: [Biquad, Biquad];
  private readonly state: Float64Array;
  private readonly weights: number[];
  private readonly energies: number[] = [];
  private current = 0;
  private inStep = 0;
  readonly step: number;

  constructor(
    sampleRate: number,
    readonly channels: number,
  ) {
    this.stages = kWeightingStages(sampleRate);
    this.state = new Float64Array(channels * 6);
    this.step = Math.round(sampleRate / 10);
    this.weights = Array.from({ length: channels }, (_, c) =>
      channels === 6 ? [1, 1, 1, 0, 1.41, 1.41][c] : 1,
    );
  }

  /** Interleaved frames; a partial frame at the end of `samples` is not allowed. */
  push(samples: Float32Array): void {
    if (this.channels === 1) {
      this.pushMono(samples);
      return;
    }
    const [s1, s2] = this.stages;
    const ch = this.channels;
    const st = this.state;
    for (let i = 0; i + ch <= samples.length; i += ch) {
      let power = 0;
      for (let c = 0; c < ch; c++) {
        const o = c * 6;
        const x = samples[i + c];
        const y = s1.b0 * x + s1.b1 * st[o] + s1.b2 * st[o + 1] - s1.a1 * st[o + 2] - s1.a2 * st[o + 3];
        st[o + 1] = st[o];
        st[o] = x;
        const z = s2.b0 * y + s2.b1 * st[o + 2] + s2.b2 * st[o + 3] - s2.a1 * st[o + 4] - s2.a2 * st[o + 5];
        st[o + 3] = st[o + 2];
        st[o + 2] = y;
        st[o + 5] = st[o + 4];
        st[o + 4] = z;
        power += this.weights[c] * z * z;
      }
      this.current += power;
      if (++this.inStep === this.step) {
        this.energies.push(this.current);
        this.current = 0;
        this.inStep = 0;
      }
    }
  }

  /**
   * push's arithmetic, operation for operation, for one channel with the filter state in locals: the
   * per-sample loop of every mono analysis, several times faster than the general one.
   */
  private pushMono(samples: Float32Array): void {
    const [s1, s2] = this.stages;
    const { b0, b1, b2, a1, a2 } = s1;
    const { b0: c0, b1: c1, b2: c2, a1: d1, a2: d2 } = s2;
    const st = this.state;
    const weight = this.weights[0];
    const step = this.step;
    let x1 = st[0];
    let x2 = st[1];
    let y1 = st[2];
    let y2 = st[3];
    let z1 = st[4];
    let z2 = st[5];
    let current = this.current;
    let inStep = this.inStep;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i];
      const y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      x2 = x1;
      x1 = x;
      const z = c0 * y + c1 * y1 + c2 * y2 - d1 * z1 - d2 * z2;
      y2 = y1;
      y1 = y;
      z2 = z1;
      z1 = z;
      current += weight * z * z;
      if (++inStep === step) {
        this.energies.push(current);
        current = 0;
        inStep = 0;
      }
    }
    st[0] = x1;
    st[1] = x2;
    st[2] = y1;
    st[3] = y2;
    st[4] = z1;
    st[5] = z2;
    this.current = current;
    this.inStep = inStep;
  }

  finish(): Float64Array {
    const out = Float64Array.from(this.energies);
    if (this.inStep === 0) return out;
    const withTail = new Float64Array(out.length + 1);
    withTail.set(out);
    withTail[out.length] = this.current;
    return withTail;
  }
}

const toLufs = (meanSquare: number): number =>
  meanSquare > 0 ? -0.691 + 10 * Math.log10(meanSquare) : Number.NEGATIVE_INFINITY;

/** Mean squares of windows of `width` steps, one per step; a signal shorter than a window gets one zero-padded window. */
function windowMeanSquares(steps: Float64Array, width: number, samplesPerStep: number): Float64Array {
  const count = Math.max(1, steps.length - width + 1);
  const out = new Float64Array(count);
  let acc = 0;
  for (let i = 0; i < Math.min(width, steps.length); i++) acc += steps[i];
  out[0] = acc / (width * samplesPerStep);
  for (let i = 1; i < count; i++) {
    acc += steps[i + width - 1] - steps[i - 1];
    out[i] = Math.max(0, acc) / (width * samplesPerStep);
  }
  return out;
}

function gatedMean(meanSquares: Float64Array, relativeGate: number): { mean: number; kept: number[] } {
  const aboveAbsolute: number[] = [];
  for (const ms of meanSquares) if (toLufs(ms) > ABSOLUTE_GATE) aboveAbsolute.push(ms);
  if (aboveAbsolute.length === 0) return { mean: 0, kept: [] };
  const ungated = aboveAbsolute.reduce((a, b) => a + b, 0) / aboveAbsolute.length;
  const threshold = toLufs(ungated) + relativeGate;
  const kept = aboveAbsolute.filter((ms) => toLufs(ms) > threshold);
  const mean = kept.length ? kept.reduce((a, b) => a + b, 0) / kept.length : 0;
  return { mean, kept };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = (sorted.length - 1) * p;
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (idx - lo);
}

export function ebuR128(signal: Float32Array, sampleRate: number): LoudnessResult {
  const meter = new KWeightedSteps(sampleRate, 1);
  meter.push(signal);
  return loudnessFromSteps(meter.finish(), meter.step);
}

/** Integrated loudness, range, momentary and short-term series from K-weighted 100 ms step energies. */
export function loudnessFromSteps(steps: Float64Array, step: number): LoudnessResult {
  const momentaryMs = windowMeanSquares(steps, 4, step);
  const shortTermMs = windowMeanSquares(steps, 30, step);
  const integratedGate = gatedMean(momentaryMs, -10);
  const integrated = integratedGate.kept.length ? toLufs(integratedGate.mean) : ABSOLUTE_GATE;
  const rangeGate = gatedMean(shortTermMs, -20);
  const shortTermLufs = rangeGate.kept.map(toLufs).sort((a, b) => a - b);
  const loudnessRange =
    shortTermLufs.length > 1 ? percentile(shortTermLufs, 0.95) - percentile(shortTermLufs, 0.1) : 0;
  const floor = (ms: number) => Math.max(ABSOLUTE_GATE, toLufs(ms));
  return {
    integrated,
    loudnessRange,
    momentary: Float32Array.from(momentaryMs, floor),
    shortTerm: Float32Array.from(shortTermMs, floor),
  };
}
