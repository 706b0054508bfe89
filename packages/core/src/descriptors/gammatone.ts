/**
 * The reference extractor's ERB bands: a frequency-domain gammatone filterbank (Slaney's / Ellis's
 * "gammatone-like spectrogram" design, as Essentia's ERBBands builds it) applied to the power spectrum,
 * and GFCC, the DCT of those bands in dB. The extractor configures one such bank, 18 bands from 26 Hz to
 * 9795 Hz, and reads both `erbbands` and `gfcc` off it.
 */
import type { FilterBank } from './filterbanks.ts';

/** Glasberg & Moore's ERB at 0 Hz (Hz) and the asymptotic ratio cf/ERB. */
const MIN_BW = 24.7;
const EAR_Q = 9.26449;

/** The extractor's GFCC settings (FreesoundLowlevelDescriptors): its ERB bank and its cepstrum. */
export const ERB_BANDS = 18;
export const ERB_LOW_HZ = 26;
export const ERB_HIGH_HZ = 9795;
export const GFCC_COEFFICIENTS = 13;

/** Below this band value a log band is floored (the reference's silenceThreshold, 1e-10 → −200 dB amp). */
const SILENCE_THRESHOLD = 1e-10;
const DB_FLOOR = -200;

/**
 * Centre frequencies, lowest first: `bands` points equally spaced on the ERB-rate scale, the lowest at
 * `lowHz` and the highest one step below `highHz` (the spacing of Slaney's MakeERBFilters).
 */
export function erbCentreFrequencies(bands: number, lowHz: number, highHz: number): number[] {
  const bw = EAR_Q * MIN_BW;
  const step = (Math.log(lowHz + bw) - Math.log(highHz + bw)) / bands;
  const out = new Array<number>(bands);
  for (let i = 1; i <= bands; i++) out[bands - i] = -bw + Math.exp(i * step) * (highHz + bw);
  return out;
}

const abs = (re: number, im: number) => Math.hypot(re, im);

/**
 * Weights of one gammatone band over the bins 0…fftSize/2: the magnitude response of a 4th-order
 * gammatone filter (bandwidth 1.019·ERB, four real zeros), normalized by its gain at the centre
 * frequency. The pole term is the reference's |p − u|⁻⁸ rather than the textbook
 * |(p − u)(p̄ − u)|⁻⁴, which tilts each band towards its own centre; we follow the reference, since its
 * values are the ones users filter on.
 */
function gammatoneWeights(cf: number, sampleRate: number, fftSize: number): Float64Array {
  const bins = fftSize / 2 + 1;
  const T = 1 / sampleRate;
  const erb = cf / EAR_Q + MIN_BW;
  const B = 1.019 * 2 * Math.PI * erb;
  const decay = Math.exp(-B * T);
  const theta = 2 * Math.PI * cf * T;
  const sinCf = Math.sin(theta);
  const cosCf = Math.cos(theta);
  const sqrP = Math.sqrt(3 + 2 ** 1.5);
  const sqrM = Math.sqrt(3 - 2 ** 1.5);
  // The four real zeros of the cascade.
  const zeros = [
    (cosCf + sqrP * sinCf) * decay,
    (cosCf - sqrP * sinCf) * decay,
    (cosCf + sqrM * sinCf) * decay,
    (cosCf - sqrM * sinCf) * decay,
  ];
  // Gain at the centre frequency: |Π (g1 + g2·(cos ± s·sin))| / |denominator|⁴.
  const g1Re = -2 * T * Math.cos(2 * theta);
  const g1Im = -2 * T * Math.sin(2 * theta);
  const g2Re = 2 * T * decay * cosCf;
  const g2Im = 2 * T * decay * sinCf;
  let numerator = 1;
  for (const s of [-sqrM, sqrM, -sqrP, sqrP]) {
    const k = cosCf + s * sinCf;
    numerator *= abs(g1Re + g2Re * k, g1Im + g2Im * k);
  }
  // −2e^{−2BT} − 2c + 2(1 + c)e^{−BT}, c = e^{2jθ}
  const cRe = Math.cos(2 * theta);
  const cIm = Math.sin(2 * theta);
  const dRe = -2 * decay * decay - 2 * cRe + 2 * (1 + cRe) * decay;
  const dIm = -2 * cIm + 2 * cIm * decay;
  const gain = numerator / abs(dRe, dIm) ** 4;
  const poleRe = decay * cosCf;
  const poleIm = decay * sinCf;
  const scale = T ** 4 / gain;
  const w = new Float64Array(bins);
  for (let j = 0; j < bins; j++) {
    const a = (2 * Math.PI * j) / fftSize;
    const uRe = Math.cos(a);
    const uIm = Math.sin(a);
    let v = scale;
    for (const z of zeros) v *= abs(uRe - z, uIm);
    const d2 = (poleRe - uRe) ** 2 + (poleIm - uIm) ** 2;
    w[j] = v / d2 ** 4;
  }
  return w;
}

/**
 * The gammatone bank as a FilterBank over a power spectrum of fftSize/2 + 1 bins. Every band covers every
 * bin: a gammatone's skirts fall slowly (about 10⁻⁹ of the peak at the far end), and on a bass drum the
 * bass under the skirt of a 3 kHz band is still a few percent of that band.
 */
export function gammatoneBank(
  bands: number,
  lowHz: number,
  highHz: number,
  sampleRate: number,
  fftSize: number,
): FilterBank & { centres: number[] } {
  const centres = erbCentreFrequencies(bands, lowHz, Math.min(highHz, sampleRate / 2));
  const weights = centres.map((cf) => Float32Array.from(gammatoneWeights(cf, sampleRate, fftSize)));
  return { bands, first: new Int32Array(bands), weights, centres };
}

/** The reference's log compression for GFCC ('dbamp' with its silence threshold): 20·log10(x), floored. */
export function bandDb(x: number): number {
  return x < SILENCE_THRESHOLD ? DB_FLOOR : 20 * Math.log10(x);
}
