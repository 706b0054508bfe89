import { dissonance } from './dissonance.ts';
import {
  applyFilterBank,
  BARK_EDGES,
  dctMatrix,
  type FilterBank,
  frequencyBandsBank,
  melBank,
  rectangularBank,
} from './filterbanks.ts';
import { FrameSeries } from './frame-series.ts';
import { bandDb, ERB_BANDS, ERB_HIGH_HZ, ERB_LOW_HZ, GFCC_COEFFICIENTS, gammatoneBank } from './gammatone.ts';
import { onsetStrength } from './onset-strength.ts';
import {
  createPeaks,
  findPeaks,
  harmonicInharmonicity,
  harmonicOddToEven,
  harmonicTristimulus,
  referenceHarmonicPeaks,
} from './peaks.ts';
import { SpectralPitchSalience } from './pitch-salience.ts';
import { FrameNoise, ReferencePitchYin, withSilenceNoise } from './pitch-yin.ts';
import { PitchYinFFT } from './pitch-yinfft.ts';
import { type ContrastBands, contrastBands, spectralContrast } from './spectral-contrast.ts';
import { crest, decrease, entropy, flatnessDb, moments, rolloff, strongPeak } from './spectral-shape.ts';
import { blackmanHarris62, cutFrame, frameCount, MagnitudeSpectrum } from './spectrum.ts';
import { Float32MagnitudeSpectrum } from './spectrum-f32.ts';

export const LOWLEVEL_FRAME = 2048;
export const LOWLEVEL_HOP = 1024;

const ENERGY_BANDS: [string, number, number][] = [
  ['spectral_energyband_low', 20, 150],
  ['spectral_energyband_middle_low', 150, 800],
  ['spectral_energyband_middle_high', 800, 4000],
  ['spectral_energyband_high', 4000, 20000],
];

const SILENCE_THRESHOLDS_DB = [20, 30, 60, 90];

/**
 * The instant-power limit below which a frame counts as silent for `silence_rate_<db>dB`, as the reference
 * extractor configures its SilenceRate: db2lin(−db/2) = 10^(−db/20). The name's decibels are amplitude
 * decibels compared with the frame's mean power, so "20 dB" is a mean power below 0.1.
 */
export function silenceRateLimit(db: number): number {
  return 10 ** (-db / 20);
}

/**
 * The reference's frame cutter replaces a silent frame (mean power below 1e-10) with white noise of
 * amplitude db2pow(−100) = 1e-10, uniform in ±1e-10, so band ratios (crest, flatness, moments) of a
 * silent frame are those of faint flat noise, not of zeros. We use that noise's expected power
 * spectrum: variance (1e-10)²/3 times the window's energy Σw², the same in every bin.
 */
const SILENT_FRAME_POWER = 1e-10;
const SILENT_NOISE_AMPLITUDE = 1e-10;

function silentFramePower(frameSize: number): number {
  const window = blackmanHarris62(frameSize);
  let energy = 0;
  for (let i = 0; i < window.length; i++) energy += window[i] * window[i];
  return ((SILENT_NOISE_AMPLITUDE * SILENT_NOISE_AMPLITUDE) / 3) * energy;
}

/** Six bands for the beat loudness ratios (Hz). */

/** Everything precomputed once per sample rate: FFT plans, windows, filterbanks, DCT matrices. */
class LowLevelPlan {
  readonly spectrum: MagnitudeSpectrum | Float32MagnitudeSpectrum;
  readonly referencePitch: ReferencePitchYin;
  readonly bark: FilterBank;
  readonly mel40: FilterBank;
  readonly mel96: FilterBank;
  readonly erb: FilterBank;
  /** The ERB bands of a silent frame: the reference fills one with faint white noise (see below). */
  readonly silentErb: Float32Array;
  /** The magnitude in every bin of a silent frame's faint noise (its expected power, see below). */
  readonly silentMagnitude: number;
  readonly energyBands: FilterBank;
  readonly dct13x40 = dctMatrix(13, 40);
  readonly dctGfcc = dctMatrix(GFCC_COEFFICIENTS, ERB_BANDS);
  readonly binHz: number;
  readonly contrast: ContrastBands;
  readonly contrastScratch: Float32Array;
  readonly salience: SpectralPitchSalience;
  readonly yinFFT: PitchYinFFT;

  constructor(
    readonly sampleRate: number,
    float32Fft: boolean,
  ) {
    const n = LOWLEVEL_FRAME;
    this.spectrum = float32Fft ? new Float32MagnitudeSpectrum(n) : new MagnitudeSpectrum(n);
    const nyquist = sampleRate / 2;
    this.referencePitch = new ReferencePitchYin(LOWLEVEL_FRAME, sampleRate, 20, nyquist, 0.15, float32Fft);
    this.bark = frequencyBandsBank(BARK_EDGES.slice(0, 28), sampleRate, n);
    this.mel40 = melBank(40, 0, Math.min(11000, nyquist), sampleRate, n);
    this.mel96 = melBank(96, 0, nyquist, sampleRate, n);
    this.erb = gammatoneBank(ERB_BANDS, ERB_LOW_HZ, ERB_HIGH_HZ, sampleRate, n);
    this.silentMagnitude = Math.sqrt(silentFramePower(n));
    this.silentErb = new Float32Array(ERB_BANDS);
    applyFilterBank(this.erb, new Float32Array(n / 2 + 1).fill(silentFramePower(n)), this.silentErb);
    const edges = ENERGY_BANDS.map(([, lo]) => lo);
    this.energyBands = rectangularBank([...edges, Math.min(20000, nyquist)], sampleRate, n);
    this.binHz = sampleRate / n;
    this.contrast = contrastBands(sampleRate, n);
    this.contrastScratch = new Float32Array(Math.max(...this.contrast.widths));
    this.salience = new SpectralPitchSalience(n / 2 + 1, this.binHz, float32Fft);
    this.yinFFT = new PitchYinFFT(n, sampleRate);
  }
}

function log10Floor(x: number): number {
  return Math.log10(Math.max(x, 1e-10));
}

/**
 * Runs every low-level frame descriptor over 2048-sample frames with a 1024 hop (Freesound extractor
 * geometry). Each frame is transformed once; all spectral descriptors read that one magnitude spectrum.
 */
export interface LowLevelResult {
  series: FrameSeries;
  /** Mean power spectrum over all frames (for the timbral models). */
  averagePower: Float64Array;
  binHz: number;
}

/**
 * Plans by sample rate: building one (FFT tables, filterbanks, YIN buffers) costs about as much as 100
 * frames, so short sounds would pay mostly for it. Safe to share: lowLevelFrames runs synchronously.
 */
const plans = new Map<string, LowLevelPlan>();

function planFor(sampleRate: number, float32Fft: boolean): LowLevelPlan {
  const key = `${sampleRate}:${float32Fft ? 'f32' : 'f64'}`;
  let plan = plans.get(key);
  if (!plan) {
    plan = new LowLevelPlan(sampleRate, float32Fft);
    plans.set(key, plan);
  }
  return plan;
}

/**
 * The series a caller may ask for by name (`wanted` of lowLevelFrames): every scalar and vector the
 * loop writes, plus `average_power` for `LowLevelResult.averagePower`.
 */
export type LowLevelWanted = ReadonlySet<string>;

/**
 * Series every frame gives even with a `frameStride`: cheap sums over the one spectrum, and the ones
 * whose frame-to-frame change (`dmean`) or previous frame (flux, onset) a statistic reads.
 */
const EVERY_FRAME_SERIES = new Set([
  'frame_energy',
  'zerocrossingrate',
  ...SILENCE_THRESHOLDS_DB.map((db) => `silence_rate_${db}dB`),
  'spectral_energy',
  'spectral_rms',
  'hfc',
  'spectral_flux',
  'onset_strength',
  'spectral_centroid',
  'spectral_rolloff',
]);

/** A strided series keeps at least this many frames (a shorter sound is read on every frame). */
export const MIN_STRIDED_FRAMES = 100;

/** The stride a signal of `frames` frames gets: at most `frameStride`, keeping MIN_STRIDED_FRAMES. */
export function effectiveStride(frames: number, frameStride = 1): number {
  const most = Math.max(1, Math.floor(frameStride));
  return Math.max(1, Math.min(most, Math.floor(frames / MIN_STRIDED_FRAMES)));
}

export interface LowLevelOptions {
  /**
   * For a search-by-example query only (never a stored analysis): every frame still gets its
   * spectrum and the EVERY_FRAME_SERIES, but the costly per-frame work (pitch, peaks, filterbanks,
   * MFCC, contrast, …) runs on every `frameStride`-th frame, and those series hold only those frames,
   * so their mean and variance are estimates from a subsample (their `dmean` spans `frameStride`
   * hops). It is a maximum: a signal shorter than `frameStride` × MIN_STRIDED_FRAMES frames gets a
   * smaller one (a one-shot of a second is read whole: too few frames to subsample, and cheap).
   * Default 1: every frame, the stored analysis's values.
   */
  frameStride?: number;
  /**
   * For a search-by-example query only: every frame's spectrum, the reference pitch's difference
   * function and the pitch salience's autocorrelation by the float32 WebAssembly FFT (fft-f32.ts;
   * `loadFloat32Fft()` must have finished) instead of fft.js's float64 one. Default false: the
   * stored analysis's values.
   */
  float32Fft?: boolean;
}

/**
 * Computes the low-level frame series; with `wanted`, only those series (others are absent from the
 * result) and only the per-frame work they need, e.g. no YIN without a pitch series, no ERB bank
 * without ERB or GFCC series. A series computed in a subset run is the same code on the same
 * spectrum as in the full run, so it holds the same values.
 */
export function lowLevelFrames(
  signal: Float32Array,
  sampleRate: number,
  wanted?: LowLevelWanted,
  options: LowLevelOptions = {},
): LowLevelResult {
  const stride = effectiveStride(
    frameCount(signal.length, LOWLEVEL_HOP, LOWLEVEL_FRAME),
    options.frameStride,
  );
  const want = (name: string) => wanted === undefined || wanted.has(name);
  const wantAny = (...names: string[]) => names.some(want);
  const shapeNames = (prefix: string) =>
    ['crest', 'flatness_db', 'kurtosis', 'skewness', 'spread'].map((stat) => `${prefix}_${stat}`);
  const needOnset = want('onset_strength');
  const needAveragePower = want('average_power');
  const needEnergyBands = wantAny(...ENERGY_BANDS.map(([name]) => name));
  const needCrest = want('spectral_crest');
  const needFlatness = want('spectral_flatness_db');
  // The reference's spectral crest and flatness are those of the Bark bands (the same numbers as
  // barkbands_crest and barkbands_flatness_db), not of the spectrum.
  const needBark = needCrest || needFlatness || wantAny('barkbands', ...shapeNames('barkbands'));
  const needMelShape = wantAny(...shapeNames('melbands'));
  const needMel40 = needMelShape || wantAny('melbands', 'mfcc');
  const needMel96 = want('melbands96');
  const needErbShape = wantAny(...shapeNames('erbbands'));
  const needGfcc = want('gfcc');
  const needErb = needErbShape || needGfcc || want('erbbands');
  const needMfcc = want('mfcc');
  const needContrast = wantAny('spectral_contrast_coeffs', 'spectral_contrast_valleys');
  const needInharmonicity = want('inharmonicity');
  const needHarmonic = wantAny('oddtoevenharmonicenergyratio', 'tristimulus');
  const needPeaks = needHarmonic || needInharmonicity || want('dissonance');
  const needComplexity = want('spectral_complexity');
  // The reference's PitchYin: `pitch` in variant A, variant B's pitch fields and note, the warmth model's f0.
  const needReferencePitch = wantAny('pitch', 'pitch_instantaneous_confidence');
  const needSalience = want('pitch_salience');
  const needRolloff = want('spectral_rolloff');
  const needDecrease = want('spectral_decrease');
  const needStrongPeak = want('spectral_strongpeak');
  const needEntropy = want('spectral_entropy');

  const plan = planFor(sampleRate, options.float32Fft ?? false);
  const { contrast } = plan;
  const averagePower = new Float64Array(plan.spectrum.bins);
  const frames = frameCount(signal.length, LOWLEVEL_HOP, LOWLEVEL_FRAME);
  const out = new FrameSeries(frames);
  const bins = plan.spectrum.bins;
  const frame = new Float32Array(LOWLEVEL_FRAME);
  const mag = new Float32Array(bins);
  const power = new Float32Array(bins);
  const previousMag = new Float32Array(bins);
  const bark = new Float32Array(plan.bark.bands);
  const mel40 = new Float32Array(40);
  const mel96 = new Float32Array(96);
  const erb = new Float32Array(ERB_BANDS);
  const energyBands = new Float32Array(4);
  const logMel = new Float64Array(40);
  const logErb = new Float64Array(ERB_BANDS);
  const peaks = createPeaks(100);
  const complexityPeaks = createPeaks(100);
  const harmonics = createPeaks(20);

  // Series nobody asked for are written to a scratch array the result does not hold (cheap
  // per-frame values are computed anyway; the costly ones are skipped with the need* flags).
  const discard = new Float32Array(frames);
  const s = (name: string) => (want(name) ? out.scalar(name) : discard);
  const scratchVectors = new Map<string, Float32Array>();
  const v = (name: string, dims: number) => {
    if (want(name)) return out.vector(name, dims);
    let scratch = scratchVectors.get(name);
    if (!scratch) {
      scratch = new Float32Array(frames * dims);
      scratchVectors.set(name, scratch);
    }
    return scratch;
  };
  const centroid = s('spectral_centroid');
  const spread = s('spectral_spread');
  const skewness = s('spectral_skewness');
  const kurtosis = s('spectral_kurtosis');
  const rolloffS = s('spectral_rolloff');
  const decreaseS = s('spectral_decrease');
  const crestS = s('spectral_crest');
  const flatness = s('spectral_flatness_db');
  const hfc = s('hfc');
  const strongpeak = s('spectral_strongpeak');
  const energy = s('spectral_energy');
  const rms = s('spectral_rms');
  const flux = s('spectral_flux');
  const entropyS = s('spectral_entropy');
  const complexity = s('spectral_complexity');
  const zcr = s('zerocrossingrate');
  const referencePitch = needReferencePitch ? out.scalar('pitch') : discard;
  const referenceConfidence = needReferencePitch ? out.scalar('pitch_instantaneous_confidence') : discard;
  const noise = new FrameNoise();
  const noisyFrame = new Float32Array(LOWLEVEL_FRAME);
  const pitchSalience = s('pitch_salience');
  const dissonanceS = s('dissonance');
  const inharmonicity = s('inharmonicity');
  const oddToEven = s('oddtoevenharmonicenergyratio');
  const frameEnergy = s('frame_energy');
  const onsetStrengthS = s('onset_strength');
  const bandSeries = ENERGY_BANDS.map(([name]) => s(name));
  const silence = SILENCE_THRESHOLDS_DB.map((db) => s(`silence_rate_${db}dB`));
  const silenceLimits = SILENCE_THRESHOLDS_DB.map(silenceRateLimit);
  const shapeOf = (prefix: string) => ({
    crest: s(`${prefix}_crest`),
    flatness: s(`${prefix}_flatness_db`),
    kurtosis: s(`${prefix}_kurtosis`),
    skewness: s(`${prefix}_skewness`),
    spread: s(`${prefix}_spread`),
  });
  const barkShape = shapeOf('barkbands');
  const melShape = shapeOf('melbands');
  const erbShape = shapeOf('erbbands');
  const barkV = v('barkbands', plan.bark.bands);
  const mel40V = v('melbands', 40);
  const mel96V = v('melbands96', 96);
  const erbV = v('erbbands', ERB_BANDS);
  const mfccV = v('mfcc', 13);
  const gfccV = v('gfcc', GFCC_COEFFICIENTS);
  const contrastV = v('spectral_contrast_coeffs', 6);
  const valleysV = v('spectral_contrast_valleys', 6);
  const tristimulusV = v('tristimulus', 3);
  const nyquist = sampleRate / 2;

  // Writes the bands' shape; returns their crest and flatness (the targets may be the shared discard).
  const shape = (target: ReturnType<typeof shapeOf>, i: number, bands: Float32Array): [number, number] => {
    const bandCrest = crest(bands);
    const bandFlatness = flatnessDb(bands);
    target.crest[i] = bandCrest;
    target.flatness[i] = bandFlatness;
    const m = moments(bands, bands.length - 1);
    target.kurtosis[i] = m.kurtosis;
    target.skewness[i] = m.skewness;
    target.spread[i] = m.spread;
    return [bandCrest, bandFlatness];
  };

  for (let i = 0; i < frames; i++) {
    const centre = i * LOWLEVEL_HOP;
    cutFrame(signal, centre, frame);
    plan.spectrum.compute(frame, mag);

    let instantPower = frame[0] * frame[0];
    let crossings = 0;
    // A sign change counted without a branch: audio's signs change too irregularly to predict.
    let previousSign = frame[0] >= 0 ? 1 : 0;
    for (let j = 1; j < LOWLEVEL_FRAME; j++) {
      const x = frame[j];
      instantPower += x * x;
      const sign = x >= 0 ? 1 : 0;
      crossings += sign ^ previousSign;
      previousSign = sign;
    }
    instantPower /= LOWLEVEL_FRAME;
    frameEnergy[i] = instantPower;
    zcr[i] = crossings / LOWLEVEL_FRAME;
    if (instantPower < SILENT_FRAME_POWER) {
      // The reference analyses a silent frame as its faint noise: every descriptor of the frame (zero
      // crossings, centroid, rolloff, shape) is that noise's, not the zeros'. Expected values: each of
      // the N - 1 sample pairs of independent symmetric noise changes sign with probability 1/2.
      zcr[i] = (0.5 * (LOWLEVEL_FRAME - 1)) / LOWLEVEL_FRAME;
      mag.fill(plan.silentMagnitude);
    }
    for (let t = 0; t < silence.length; t++) silence[t][i] = instantPower < silenceLimits[t] ? 1 : 0;

    let e = 0;
    let h = 0;
    let fluxSum = 0;
    for (let k = 0; k < bins; k++) {
      const p = mag[k] * mag[k];
      power[k] = p;
      e += p;
      h += k * p;
      const d = mag[k] - previousMag[k];
      fluxSum += d * d;
    }
    // Frame 0 rises from silence (previousMag starts at zeros), so a sound that starts at once still
    // gets its onset.
    if (needOnset) onsetStrengthS[i] = onsetStrength(mag, previousMag);
    energy[i] = e;
    rms[i] = Math.sqrt(e / bins);
    hfc[i] = hfcMasri(h, nyquist, bins);
    // The reference's Flux compares the first frame with zeros.
    flux[i] = Math.sqrt(fluxSum);
    previousMag.set(mag);

    // The reference's centroid is of the power spectrum (its other moments are of the magnitudes).
    centroid[i] = powerCentroid(e, h, nyquist, bins);
    if (needRolloff) rolloffS[i] = rolloff(power, plan.binHz);
    if (needAveragePower) for (let k = 0; k < bins; k++) averagePower[k] += power[k];
    if (stride > 1 && i % stride !== 0) continue;

    const m = moments(mag, nyquist);
    spread[i] = m.spread;
    skewness[i] = m.skewness;
    kurtosis[i] = m.kurtosis;
    if (needDecrease) decreaseS[i] = decrease(power, nyquist);
    if (needStrongPeak) strongpeak[i] = strongPeak(mag);
    if (needEntropy) entropyS[i] = entropy(mag); // the reference's Entropy reads the magnitudes

    if (needEnergyBands) {
      applyFilterBank(plan.energyBands, power, energyBands);
      for (let b = 0; b < 4; b++) bandSeries[b][i] = energyBands[b];
    }
    if (needBark) {
      applyFilterBank(plan.bark, power, bark);
      barkV.set(bark, i * bark.length);
      [crestS[i], flatness[i]] = shape(barkShape, i, bark);
    }
    if (needMel40) {
      applyFilterBank(plan.mel40, power, mel40);
      mel40V.set(mel40, i * 40);
      if (needMelShape) shape(melShape, i, mel40);
    }
    if (needMel96) {
      applyFilterBank(plan.mel96, power, mel96);
      mel96V.set(mel96, i * 96);
    }
    if (needErb) {
      if (instantPower < SILENT_FRAME_POWER) erb.set(plan.silentErb);
      else applyFilterBank(plan.erb, power, erb);
      erbV.set(erb, i * ERB_BANDS);
      if (needErbShape) shape(erbShape, i, erb);
    }

    // MFCC: DCT-II of the band energies in dB (Essentia's log type "dbamp" on power bands).
    if (needMfcc) {
      for (let b = 0; b < 40; b++) logMel[b] = 20 * log10Floor(mel40[b]);
      dct(plan.dct13x40, logMel, mfccV, i * 13);
    }
    // GFCC: the same on the ERB bands, as the reference's GFCC (log type "dbamp" on power bands too).
    if (needGfcc) {
      for (let b = 0; b < ERB_BANDS; b++) logErb[b] = bandDb(erb[b]);
      dct(plan.dctGfcc, logErb, gfccV, i * GFCC_COEFFICIENTS);
    }

    if (needContrast) spectralContrast(mag, contrast, plan.contrastScratch, contrastV, valleysV, i * 6);

    if (needPeaks) {
      // The reference's SpectralPeaks defaults: ≤ 100 peaks from 0 Hz to 5 kHz, any magnitude above 0.
      findPeaks(mag, plan.binHz, 0, 0, 5000, peaks);
      dissonanceS[i] = dissonance(peaks);
      // The reference's harmonic peaks (from 20 Hz, the first bin here) follow PitchYinFFT on this spectrum,
      // every frame, with no confidence gate; inharmonicity, odd-to-even ratio and tristimulus read them.
      if (needInharmonicity || needHarmonic) {
        referenceHarmonicPeaks(peaks, plan.yinFFT.pitch(mag), harmonics);
        if (needInharmonicity) inharmonicity[i] = harmonicInharmonicity(harmonics);
        if (needHarmonic) {
          oddToEven[i] = harmonicOddToEven(harmonics);
          harmonicTristimulus(harmonics, tristimulusV, i * 3);
        }
      }
    }
    if (needComplexity) {
      // The reference's SpectralComplexity: peaks above 0.005 between 100 Hz and 5 kHz, at most 100.
      findPeaks(mag, plan.binHz, 0.005, 100, 5000, complexityPeaks);
      complexity[i] = complexityPeaks.count;
    }

    if (needSalience) pitchSalience[i] = plan.salience.compute(mag);
    if (needReferencePitch) {
      plan.referencePitch.difference.compute(withSilenceNoise(frame, noisyFrame, noise));
      const reference = plan.referencePitch.pick(plan.referencePitch.difference);
      referencePitch[i] = reference.pitch;
      referenceConfidence[i] = reference.confidence;
    }
  }
  if (needAveragePower && frames > 0) for (let k = 0; k < bins; k++) averagePower[k] /= frames;
  if (stride > 1) keepStridedFrames(out, stride);
  return { series: out, averagePower, binHz: plan.binHz };
}

/** Cuts the series computed on every `stride`-th frame only down to those frames. */
function keepStridedFrames(out: FrameSeries, stride: number): void {
  const kept = Math.ceil(out.frames / stride);
  for (const [name, data] of out.scalars) {
    if (EVERY_FRAME_SERIES.has(name)) continue;
    const compact = new Float32Array(kept);
    for (let j = 0; j < kept; j++) compact[j] = data[j * stride];
    out.scalars.set(name, compact);
  }
  for (const [name, vector] of out.vectors) {
    const { dims, data } = vector;
    const compact = new Float32Array(kept * dims);
    for (let j = 0; j < kept; j++)
      compact.set(data.subarray(j * stride * dims, (j * stride + 1) * dims), j * dims);
    out.vectors.set(name, { dims, data: compact });
  }
}

/**
 * Spectral centroid (Hz) of the power spectrum, as the reference's Centroid on the squared spectrum with
 * range = Nyquist: Σ k·|X_k|² / Σ |X_k|² × Nyquist/(bins − 1). `energy` = Σ|X_k|², `weighted` = Σ k·|X_k|².
 */
export function powerCentroid(energy: number, weighted: number, nyquist: number, bins: number): number {
  return energy > 0 ? (weighted / energy) * (nyquist / (bins - 1)) : 0;
}

/**
 * High-frequency content as the reference's HFC (Masri's type): Σ f_k·|X_k|² with f_k the bin's frequency
 * in Hz, k × Nyquist/(bins − 1). `weighted` = Σ k·|X_k|².
 */
export function hfcMasri(weighted: number, nyquist: number, bins: number): number {
  return weighted * (nyquist / (bins - 1));
}

/** DCT-II (one row of `matrix` per coefficient) of the log bands, written at `offset`. */
function dct(matrix: Float64Array[], logBands: Float64Array, out: Float32Array, offset: number) {
  for (let c = 0; c < matrix.length; c++) {
    const row = matrix[c];
    let a = 0;
    for (let b = 0; b < row.length; b++) a += row[b] * logBands[b];
    out[offset + c] = a;
  }
}
