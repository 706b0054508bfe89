/**
 * Precomputed band filters over a magnitude/power spectrum, stored sparsely (first bin + weights) so a
 * frame costs one multiply-add per covered bin. Built once per analysis, never per frame.
 */
export interface FilterBank {
  readonly bands: number;
  readonly first: Int32Array;
  readonly weights: Float32Array[];
}

export function applyFilterBank(bank: FilterBank, power: Float32Array, out: Float32Array): void {
  for (let b = 0; b < bank.bands; b++) {
    const w = bank.weights[b];
    const first = bank.first[b];
    // Four partial sums: one running sum waits for each add to finish (the dense ERB bands make this
    // the low-level loop's costliest reduction). float32 × float32 is exact in a double, so only the
    // order of the additions changes: the values move by rounding noise alone.
    const n = w.length;
    const quads = n & ~3;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let i = 0;
    for (; i < quads; i += 4) {
      s0 += w[i] * power[first + i];
      s1 += w[i + 1] * power[first + i + 1];
      s2 += w[i + 2] * power[first + i + 2];
      s3 += w[i + 3] * power[first + i + 3];
    }
    for (; i < n; i++) s0 += w[i] * power[first + i];
    out[b] = s0 + s1 + (s2 + s3);
  }
}

function binFrequency(bin: number, sampleRate: number, fftSize: number): number {
  return (bin * sampleRate) / fftSize;
}

/** Rectangular bands: the sum of the power in [edge_b, edge_b+1) (Essentia's BarkBands/EnergyBand style). */
export function rectangularBank(edges: number[], sampleRate: number, fftSize: number): FilterBank {
  const bins = fftSize / 2 + 1;
  const first: number[] = [];
  const weights: Float32Array[] = [];
  for (let b = 0; b + 1 < edges.length; b++) {
    const lo = Math.ceil((edges[b] * fftSize) / sampleRate);
    const hi = Math.min(bins - 1, Math.ceil((edges[b + 1] * fftSize) / sampleRate) - 1);
    const count = Math.max(0, hi - lo + 1);
    first.push(Math.min(lo, bins - 1));
    weights.push(new Float32Array(count).fill(1));
  }
  return { bands: weights.length, first: Int32Array.from(first), weights };
}

/**
 * Essentia's FrequencyBands (what its BarkBands sums): band _b_ holds the bins from round(edge_b / binHz)
 * up to, not including, round(edge_{b+1} / binHz) — each edge goes to the nearest bin, so at 44.1 kHz and
 * 2048 points the 50 Hz edge falls between bins 1 and 2 (43 Hz belongs to the second band).
 */
export function frequencyBandsBank(edges: number[], sampleRate: number, fftSize: number): FilterBank {
  const bins = fftSize / 2 + 1;
  const binHz = sampleRate / fftSize;
  const first: number[] = [];
  const weights: Float32Array[] = [];
  for (let b = 0; b + 1 < edges.length; b++) {
    const lo = Math.trunc(edges[b] / binHz + 0.5);
    const hi = Math.min(bins, Math.trunc(edges[b + 1] / binHz + 0.5));
    first.push(Math.min(lo, bins - 1));
    weights.push(new Float32Array(Math.max(0, hi - lo)).fill(1));
  }
  return { bands: weights.length, first: Int32Array.from(first), weights };
}

/**
 * Triangles with the given centre frequencies (edges = neighbours): normalized to unit sum (a band is the
 * mean power under it) or left at unit peak (a band is the summed power).
 */
function triangularBank(points: number[], sampleRate: number, fftSize: number, unitSum = true): FilterBank {
  const bins = fftSize / 2 + 1;
  const first: number[] = [];
  const weights: Float32Array[] = [];
  for (let b = 1; b + 1 < points.length; b++) {
    const lo = points[b - 1];
    const mid = points[b];
    const hi = points[b + 1];
    const from = Math.max(0, Math.floor((lo * fftSize) / sampleRate));
    const to = Math.min(bins - 1, Math.ceil((hi * fftSize) / sampleRate));
    const w = new Float32Array(Math.max(1, to - from + 1));
    let sum = 0;
    for (let k = from; k <= to; k++) {
      const f = binFrequency(k, sampleRate, fftSize);
      let v = 0;
      if (f > lo && f <= mid) v = (f - lo) / (mid - lo);
      else if (f > mid && f < hi) v = (hi - f) / (hi - mid);
      w[k - from] = v;
      sum += v;
    }
    // A band narrower than one bin still gets the nearest bin, so no band is identically zero.
    if (sum === 0) {
      const nearest = Math.min(bins - 1, Math.round((mid * fftSize) / sampleRate));
      first.push(nearest);
      weights.push(Float32Array.of(1));
      continue;
    }
    if (unitSum) for (let i = 0; i < w.length; i++) w[i] /= sum;
    first.push(from);
    weights.push(w);
  }
  return { bands: weights.length, first: Int32Array.from(first), weights };
}

const hzToMel = (hz: number): number => 2595 * Math.log10(1 + hz / 700);
const melToHz = (mel: number): number => 700 * (10 ** (mel / 2595) - 1);

/** HTK-mel triangular bank between lowHz and highHz (unit-sum triangles, as Essentia's MelBands unit_sum). */
export function melBank(
  bands: number,
  lowHz: number,
  highHz: number,
  sampleRate: number,
  fftSize: number,
): FilterBank {
  const lo = hzToMel(lowHz);
  const hi = hzToMel(highHz);
  const points = Array.from({ length: bands + 2 }, (_, i) => melToHz(lo + ((hi - lo) * i) / (bands + 1)));
  return triangularBank(points, sampleRate, fftSize);
}

/** The 28 edges of Essentia's 27 Bark bands (Hz). */
export const BARK_EDGES = [
  0, 50, 100, 150, 200, 300, 400, 510, 630, 770, 920, 1080, 1270, 1480, 1720, 2000, 2320, 2700, 3150, 3700,
  4400, 5300, 6400, 7700, 9500, 12000, 15500, 20500, 27000,
];

/** DCT-II matrix (orthonormal scaling), rows = coefficients. */
export function dctMatrix(coefficients: number, inputs: number): Float64Array[] {
  const rows: Float64Array[] = [];
  for (let c = 0; c < coefficients; c++) {
    const row = new Float64Array(inputs);
    const scale = c === 0 ? Math.sqrt(1 / inputs) : Math.sqrt(2 / inputs);
    for (let j = 0; j < inputs; j++) row[j] = scale * Math.cos((Math.PI * c * (j + 0.5)) / inputs);
    rows.push(row);
  }
  return rows;
}
