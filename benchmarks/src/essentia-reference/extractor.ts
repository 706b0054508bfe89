/**
 * The reference extractor's chains (Essentia's FreesoundExtractor, "freesound 1.0", as its sources
 * wire them: FreesoundLowlevelDescriptors, FreesoundTonalDescriptors, FreesoundRhythmDescriptors,
 * FreesoundSfxDescriptors, and the PoolAggregator step of FreesoundExtractor) run with essentia.js's
 * kernels on a decoded mono 44.1 kHz signal, written in the shape of the native extractor's statistics
 * JSON for the families it can compute here.
 *
 * - Low-level frames: 2048 samples, hop 1024, Blackman-Harris 62 window, silent frames replaced by the
 *   cutter's −100 dB noise. essentia.js's LowLevelSpectralExtractor runs that network in one call (the
 *   Freesound chain's own settings: BarkBands(27) feeding CentralMoments(range 26), Crest and FlatnessDB —
 *   which the Freesound chain writes both as `barkbands_*` and `spectral_crest`/`spectral_flatness_db` —
 *   EnergyBand 20–150/150–800/800–4000/4000–20000 Hz, Flux, HFC, MFCC, PitchSalience, SpectralComplexity
 *   (threshold 0.005), SilenceRate, ZeroCrossingRate, and PitchYinFFT → HarmonicPeaks → Tristimulus,
 *   OddToEvenHarmonicEnergyRatio, Inharmonicity for `sfx.*`); LowLevelSpectralEqloudExtractor, fed the
 *   signal unfiltered, the rest of the chain (Centroid and CentralMoments of range 22050 on the squared and
 *   plain spectrum, SpectralPeaks → Dissonance, SpectralContrast with 6 bands in 20–11000 Hz,
 *   neighbourRatio 0.4, staticDistribution 0.15). Per frame here: Entropy of the spectrum; the MFCC's 40
 *   mel bands, MelBands(96) and the GFCC's 18 ERB bands (26–9795 Hz) through their filterbanks read out of
 *   essentia.js (filterbank.ts), each band vector's CentralMoments → DistributionShape, FlatnessDB and
 *   Crest, and the GFCC's amp2db → DCT (type 2, 13 coefficients); Loudness (for average_loudness), the
 *   silence-rate thresholds and StartStopSilence (−60 dB).
 * - Tonal frames: 4096, hop 2048, same window and silence rule. TuningFrequencyExtractor runs the running
 *   tuning estimate; per frame SpectralPeaks (60, 20–3500 Hz, above 10⁻⁵, by magnitude) → HPCP (36 bins,
 *   440 Hz, cosine window of 1 semitone, no band preset, no harmonics) → Entropy and Crest; KeyExtractor
 *   (profile bgate, frame and hop 4096, 12 bins).
 * - Rhythm: RhythmExtractor2013 (multifeature, 40–208 BPM), BpmHistogramDescriptors on its intervals,
 *   OnsetRate, BeatsLoudness on its beats (a single beat at 0 when it finds none), PercivalBpmEstimator
 *   and LoopBpmConfidence for `bpm_loop`.
 * - sfx: Envelope (10 ms attack, 1.5 s release) restarted on each 4096-sample block as the streaming
 *   network feeds it, then Decrease, CentralMoments → DistributionShape, Centroid, EffectiveDuration,
 *   LogAttackTime, StrongDecay, FlatnessSFX, MaxToTotal, TCToTotal, DerivativeSFX on the whole envelope;
 *   the pitch descriptors on the `lowlevel.pitch` track.
 * - DynamicComplexity on the whole signal.
 *
 * Not reproduced, so written but left out of any comparison by the validation (validation.ts):
 * `lowlevel.pitch` and `pitch_instantaneous_confidence` (the native chain runs PitchYin on each frame;
 * essentia.js's PitchYin costs 12–70 ms a frame, so the PitchYinFFT of LowLevelSpectralExtractor is
 * written instead) and the sfx pitch descriptors read from that track; `bpm_loop` and its confidence;
 * the onsets (essentia.js's standard OnsetRate differs from the streaming one on 4 of 40 recordings).
 * Not computed: loudness_ebu128 (it reads the file's own channels) and the metadata.
 */

import { type EssentiaJs, EssentiaJsError } from './essentia-js.ts';
import { applyFilterbank, type LowLevelBanks } from './filterbank.ts';
import { cutFrames, frameStarts, instantPower } from './frames.ts';
import { aggregateSeries, aggregateVectors } from './pool-aggregator.ts';

export type Tree = Record<string, any>;

const LOWLEVEL = { frameSize: 2048, hopSize: 1024 } as const;
const TONAL = { frameSize: 4096, hopSize: 2048 } as const;
/** The block the streaming network feeds the sfx envelope (its follower restarts on each). */
const ENVELOPE_BLOCK = 4096;

/** Essentia's db2pow and db2lin are the same conversion, 10^(dB/10). */
const db2pow = (db: number) => 10 ** (db / 10);
const db2lin = db2pow;

/** The reference's −100 dB noise generator (NoiseAdder, fixed seed), drawn in blocks as frames need it. */
class SilentNoise {
  private buffer = new Float32Array(0);
  private used = 0;
  constructor(private readonly essentia: EssentiaJs) {}
  next = (size: number): Float32Array => {
    if (this.used + size > this.buffer.length) this.refill(Math.max(64 * size, this.buffer.length));
    const out = this.buffer.subarray(this.used, this.used + size);
    this.used += size;
    return out;
  };
  private refill(more: number): void {
    // NoiseAdder with a fixed seed starts its generator over on each call: draw the sequence again from
    // its start, longer, and go on reading where the frames stopped.
    const zeros = this.essentia.vector(new Float32Array(this.used + more));
    this.buffer = Float32Array.from(
      this.essentia.take(this.essentia.run('NoiseAdder', zeros, true, -100).signal),
    );
    zeros.delete();
  }
}

function stats(values: number[]): Tree {
  return aggregateSeries(values);
}

function vstats(rows: number[][]): Tree {
  return aggregateVectors(rows);
}

/** Runs a whole-signal extractor and returns each output as a frame series. */
function series(
  essentia: EssentiaJs,
  outputs: Record<string, unknown>,
): Record<string, number[] | number[][]> {
  const out: Record<string, number[] | number[][]> = {};
  for (const [name, value] of Object.entries(outputs)) {
    const v = value as { size(): number; get(i: number): unknown };
    const nested = v.size() > 0 && typeof (v.get(0) as { size?: unknown })?.size === 'function';
    out[name] = nested ? essentia.takeRows(value) : essentia.take(value);
  }
  return out;
}

/** amp2db of Essentia: 2 · lin2db, lin2db floored at −100 dB below 10⁻¹⁰. */
const amp2db = (x: number) => 2 * (x < 1e-10 ? -100 : 10 * Math.log10(x));

/** The shape descriptors the chain writes for a band vector: CentralMoments (range bands − 1) etc. */
class BandShape {
  readonly kurtosis: number[] = [];
  readonly skewness: number[] = [];
  readonly spread: number[] = [];
  readonly flatness: number[] = [];
  readonly crest: number[] = [];
  constructor(private readonly essentia: EssentiaJs) {}
  push(bands: number[]): void {
    const e = this.essentia;
    const v = e.vector(bands);
    const moments = e.run('CentralMoments', v, 'pdf', bands.length - 1);
    const shape = e.run('DistributionShape', moments.centralMoments);
    this.kurtosis.push(shape.kurtosis as number);
    this.skewness.push(shape.skewness as number);
    this.spread.push(shape.spread as number);
    this.flatness.push(e.run('FlatnessDB', v).flatnessDB as number);
    this.crest.push(e.run('Crest', v).crest as number);
    e.free(moments);
    v.delete();
  }
  tree(prefix: string): Tree {
    return {
      [`${prefix}_crest`]: stats(this.crest),
      [`${prefix}_flatness_db`]: stats(this.flatness),
      [`${prefix}_kurtosis`]: stats(this.kurtosis),
      [`${prefix}_skewness`]: stats(this.skewness),
      [`${prefix}_spread`]: stats(this.spread),
    };
  }
}

function lowLevel(
  essentia: EssentiaJs,
  signal: Float32Array,
  sampleRate: number,
  input: unknown,
  banks: LowLevelBanks,
): Tree {
  const ll = series(
    essentia,
    essentia.run('LowLevelSpectralExtractor', input, LOWLEVEL.frameSize, LOWLEVEL.hopSize, sampleRate),
  );
  const eq = series(
    essentia,
    essentia.run('LowLevelSpectralEqloudExtractor', input, LOWLEVEL.frameSize, LOWLEVEL.hopSize, sampleRate),
  );
  const s = (name: string, from: Record<string, number[] | number[][]> = ll) => stats(from[name] as number[]);
  const v = (name: string, from: Record<string, number[] | number[][]> = ll) =>
    vstats(from[name] as number[][]);

  // Per frame: what neither extractor writes.
  const entropy: number[] = [];
  const loudness: number[] = [];
  // SilenceRate's 20, 30 and 60 dB come with LowLevelSpectralExtractor; the native extractor writes a
  // 90 dB rate as well, by the same rule (mean power under db2lin(−dB/2)).
  const silent90: number[] = [];
  const startStop = new StartStopSilence(db2pow(-60));
  const mel: number[][] = [];
  const mel96: number[][] = [];
  const erb: number[][] = [];
  const gfcc: number[][] = [];
  const melShape = new BandShape(essentia);
  const erbShape = new BandShape(essentia);
  const noise = new SilentNoise(essentia);
  for (const frame of cutFrames(signal, LOWLEVEL.frameSize, LOWLEVEL.hopSize, noise.next)) {
    const power = instantPower(frame);
    silent90.push(power < db2lin(-90 / 2) ? 1 : 0);
    startStop.push(power);
    const f = essentia.vector(frame);
    const loud = essentia.run('Loudness', f);
    loudness.push(loud.loudness as number);
    const windowed = essentia.run('Windowing', f, true, LOWLEVEL.frameSize, 'blackmanharris62', 0, true);
    const spectrum = essentia.run('Spectrum', windowed.frame, LOWLEVEL.frameSize);
    entropy.push(essentia.run('Entropy', spectrum.spectrum).entropy as number);
    const binPower = essentia.take(spectrum.spectrum).map((m) => m * m);
    const melBands = applyFilterbank(banks.mel40, binPower);
    mel.push(melBands);
    melShape.push(melBands);
    mel96.push(applyFilterbank(banks.mel96, binPower));
    const erbBands = applyFilterbank(banks.erb18, binPower);
    erb.push(erbBands);
    erbShape.push(erbBands);
    // GFCC: amp2db of each band, then the DCT (type 2) to 13 coefficients.
    const logBands = essentia.vector(erbBands.map(amp2db));
    gfcc.push(essentia.take(essentia.run('DCT', logBands, 2, 18, 0, 13).dct));
    logBands.delete();
    essentia.free(windowed);
    f.delete();
  }
  const frames = frameStarts(signal.length, LOWLEVEL.frameSize, LOWLEVEL.hopSize).length;
  if ((ll.spectral_flux as number[]).length !== frames)
    throw new Error(
      `frame count: ${frames} cut here, ${(ll.spectral_flux as number[]).length} by LowLevelSpectralExtractor`,
    );

  const dynamic = essentia.run('DynamicComplexity', input, 0.2, sampleRate);
  return {
    average_loudness: averageLoudness(loudness),
    barkbands: v('barkbands'),
    barkbands_crest: s('spectral_crest'),
    barkbands_flatness_db: s('spectral_flatness_db'),
    barkbands_kurtosis: s('barkbands_kurtosis'),
    barkbands_skewness: s('barkbands_skewness'),
    barkbands_spread: s('barkbands_spread'),
    dissonance: s('dissonance', eq),
    dynamic_complexity: dynamic.dynamicComplexity as number,
    erbbands: vstats(erb),
    ...erbShape.tree('erbbands'),
    gfcc: vstats(gfcc),
    hfc: s('hfc'),
    melbands: vstats(mel),
    ...melShape.tree('melbands'),
    melbands96: vstats(mel96),
    mfcc: v('mfcc'),
    pitch: s('pitch'),
    pitch_instantaneous_confidence: s('pitch_instantaneous_confidence'),
    pitch_salience: s('pitch_salience'),
    silence_rate_20dB: s('silence_rate_20dB'),
    silence_rate_30dB: s('silence_rate_30dB'),
    silence_rate_60dB: s('silence_rate_60dB'),
    silence_rate_90dB: stats(silent90),
    sound_start_frame: startStop.start,
    sound_stop_frame: startStop.stop,
    spectral_centroid: s('spectral_centroid', eq),
    spectral_complexity: s('spectral_complexity'),
    spectral_contrast_coeffs: v('sccoeffs', eq),
    spectral_contrast_valleys: v('scvalleys', eq),
    spectral_crest: s('spectral_crest'),
    spectral_decrease: s('spectral_decrease'),
    spectral_energy: s('spectral_energy'),
    spectral_energyband_high: s('spectral_energyband_high'),
    spectral_energyband_low: s('spectral_energyband_low'),
    spectral_energyband_middle_high: s('spectral_energyband_middle_high'),
    spectral_energyband_middle_low: s('spectral_energyband_middle_low'),
    spectral_entropy: stats(entropy),
    spectral_flatness_db: s('spectral_flatness_db'),
    spectral_flux: s('spectral_flux'),
    spectral_kurtosis: s('spectral_kurtosis', eq),
    spectral_rms: s('spectral_rms'),
    spectral_rolloff: s('spectral_rolloff'),
    spectral_skewness: s('spectral_skewness', eq),
    spectral_spread: s('spectral_spread', eq),
    spectral_strongpeak: s('spectral_strongpeak'),
    zerocrossingrate: s('zerocrossingrate'),
    // Kept for the sfx chain (not written under lowlevel).
    _pitchTrack: ll.pitch,
    _harmonic: {
      inharmonicity: s('inharmonicity'),
      oddtoevenharmonicenergyratio: s('oddtoevenharmonicenergyratio'),
      tristimulus: v('tristimulus'),
    },
  };
}

/**
 * Essentia's StartStopSilence, frame by frame: the first frame after the leading silent ones and the last
 * frame at or above the threshold. Kept here because an essentia.js call restarts its count.
 */
export class StartStopSilence {
  start = 0;
  stop = 0;
  private frame = 0;
  private wasSilent = false;
  constructor(private readonly threshold: number) {}
  push(power: number): void {
    if (this.wasSilent) {
      this.start++;
      this.wasSilent = false;
    }
    const silent = power < this.threshold;
    if (silent && this.stop === this.start) {
      this.start = this.frame;
      this.wasSilent = true;
    }
    if (!silent) this.stop = this.frame;
    if (this.start > this.stop) this.stop = this.start;
    this.frame++;
  }
}

/**
 * FreesoundLowlevelDescriptors::computeAverageLoudness: the frame loudness over its maximum (at least
 * 10⁻⁴), each floored at 10⁻⁴, their mean in dB, squeezed by 0.5 + 0.5·tanh(−1 + 2(x + 5)/3).
 */
export function averageLoudness(levels: readonly number[]): number {
  let max = Math.max(...levels);
  if (max <= 10e-5) max = 10e-5;
  let sum = 0;
  for (const level of levels) sum += Math.max(level / max, 0.0001);
  const average = 10 * Math.log10(sum / levels.length);
  return 0.5 + 0.5 * Math.tanh(-1 + (2 * (average + 5)) / 3);
}

function tonal(essentia: EssentiaJs, signal: Float32Array, input: unknown): Tree {
  const tuning = essentia.take(
    essentia.run('TuningFrequencyExtractor', input, TONAL.frameSize, TONAL.hopSize).tuningFrequency,
  );
  const hpcp: number[][] = [];
  const entropy: number[] = [];
  const crest: number[] = [];
  const noise = new SilentNoise(essentia);
  for (const frame of cutFrames(signal, TONAL.frameSize, TONAL.hopSize, noise.next)) {
    const f = essentia.vector(frame);
    const windowed = essentia.run('Windowing', f, true, TONAL.frameSize, 'blackmanharris62', 0, true);
    const spectrum = essentia.run('Spectrum', windowed.frame, TONAL.frameSize);
    const peaks = essentia.run('SpectralPeaks', spectrum.spectrum, 0.00001, 3500, 60, 20, 'magnitude', 44100);
    const h = essentia.run(
      'HPCP',
      peaks.frequencies,
      peaks.magnitudes,
      false,
      500,
      0,
      3500,
      false,
      20,
      false,
      'unitMax',
      440,
      44100,
      36,
      'cosine',
      1,
    );
    const profile = essentia.take(h.hpcp);
    hpcp.push(profile);
    const pv = essentia.vector(profile);
    entropy.push(essentia.run('Entropy', pv).entropy as number);
    crest.push(essentia.run('Crest', pv).crest as number);
    pv.delete();
    for (const outputs of [peaks, spectrum, windowed]) essentia.free(outputs);
    f.delete();
  }
  const hpcpStats = vstats(hpcp);
  const meanProfile = essentia.vector(hpcpStats.mean as number[]);
  const hpcpPeaks = essentia.run('PeakDetection', meanProfile, true, 100, 1, 0, 0, 'position', 1, 0.1);
  const peakCount = (hpcpPeaks.amplitudes as { size(): number }).size();
  essentia.free(hpcpPeaks);
  meanProfile.delete();
  const key = essentia.run(
    'KeyExtractor',
    input,
    true,
    4096,
    4096,
    12,
    3500,
    60,
    25,
    0.2,
    'bgate',
    44100,
    0.0001,
    440,
    'cosine',
    'hann',
  );
  return {
    hpcp: hpcpStats,
    hpcp_crest: stats(crest),
    hpcp_entropy: stats(entropy),
    hpcp_peak_count: peakCount,
    key: { key: key.key, scale: key.scale, strength: key.strength },
    tuning_frequency: stats(tuning),
  };
}

function rhythm(essentia: EssentiaJs, signal: Float32Array, sampleRate: number, input: unknown): Tree {
  let ticks: number[] = [];
  let intervals: number[] = [];
  let bpm = 0;
  let confidence = 0;
  try {
    const r = essentia.run('RhythmExtractor2013', input, 208, 'multifeature', 40);
    ticks = essentia.take(r.ticks);
    intervals = essentia.take(r.bpmIntervals);
    essentia.take(r.estimates);
    bpm = r.bpm as number;
    confidence = r.confidence as number;
  } catch (error) {
    // The tracker throws on material without onsets: no beats, as the reference writes then.
    if (!(error instanceof EssentiaJsError)) throw error;
  }
  const histogram = { first: [0, 0, 0], second: [0, 0, 0], bins: [] as number[] };
  if (intervals.length > 0) {
    const iv = essentia.vector(intervals);
    try {
      const h = essentia.run('BpmHistogramDescriptors', iv);
      histogram.first = [h.firstPeakBPM, h.firstPeakWeight, h.firstPeakSpread] as number[];
      histogram.second = [h.secondPeakBPM, h.secondPeakWeight, h.secondPeakSpread] as number[];
      histogram.bins = essentia.take(h.histogram);
    } finally {
      iv.delete();
    }
  }
  const onsets = essentia.run('OnsetRate', input);
  const onsetTimes = essentia.take(onsets.onsets);
  // The JS wrapper of BeatsLoudness drops its vector parameters: call the WebAssembly side with them.
  // On a sound shorter than its beat window it throws; the reference then writes neither family.
  const beats = essentia.vector(ticks.length ? ticks : [0]);
  // The streaming BeatsLoudness's bands (the standard one's defaults differ: 20, 150, 400, 3200, 7000, 22000).
  const bands = essentia.vector([0, 200, 400, 800, 1600, 3200, 22000]);
  let beatLoudness: Tree = {};
  try {
    const loud = essentia.runRaw('BeatsLoudness', input, 0.05, 0.1, beats, bands, sampleRate);
    beatLoudness = {
      beats_loudness: stats(essentia.take(loud.loudness)),
      beats_loudness_band_ratio: vstats(essentia.takeRows(loud.loudnessBandRatio)),
    };
  } catch (error) {
    if (!(error instanceof EssentiaJsError)) throw error;
  } finally {
    beats.delete();
    bands.delete();
  }
  // Percival's estimator throws on a sound shorter than its analysis windows: no loop tempo then.
  let loop: Tree = {};
  try {
    const bpmLoop = essentia.run('PercivalBpmEstimator', input).bpm as number;
    loop = {
      bpm_loop: bpmLoop,
      bpm_loop_confidence: essentia.run('LoopBpmConfidence', input, bpmLoop, sampleRate).confidence,
    };
  } catch (error) {
    if (!(error instanceof EssentiaJsError)) throw error;
  }
  return {
    beats_count: ticks.length,
    ...beatLoudness,
    beats_position: ticks,
    bpm,
    bpm_confidence: confidence,
    bpm_histogram: histogram.bins,
    bpm_histogram_first_peak_bpm: histogram.first[0],
    bpm_histogram_first_peak_spread: histogram.first[2],
    bpm_histogram_first_peak_weight: histogram.first[1],
    bpm_histogram_second_peak_bpm: histogram.second[0],
    bpm_histogram_second_peak_spread: histogram.second[2],
    bpm_histogram_second_peak_weight: histogram.second[1],
    bpm_intervals: intervals,
    ...loop,
    onset_count: onsetTimes.length,
    // The streaming OnsetRate divides by the length its 1024/512 frames cover, not the signal's.
    onset_rate: onsetTimes.length / ((frameStarts(signal.length, 1024, 512).length * 512) / sampleRate),
    onset_times: onsetTimes,
  };
}

/** The block-restarting envelope the sfx chain reads (see the module comment). */
function envelope(essentia: EssentiaJs, signal: Float32Array, sampleRate: number): number[] {
  const out: number[] = [];
  for (let from = 0; from < signal.length; from += ENVELOPE_BLOCK) {
    const block = essentia.vector(signal.subarray(from, Math.min(from + ENVELOPE_BLOCK, signal.length)));
    out.push(...essentia.take(essentia.run('Envelope', block, true, 10, 1500, sampleRate).signal));
    block.delete();
  }
  return out;
}

function sfx(essentia: EssentiaJs, signal: Float32Array, sampleRate: number, pitchTrack: number[]): Tree {
  const env = envelope(essentia, signal, sampleRate);
  const e = essentia.vector(env);
  const one = (name: string, ...args: unknown[]) => {
    const outputs = essentia.run(name, e, ...args);
    const values = Object.fromEntries(
      Object.entries(outputs).map(([k, v]) => [k, typeof v === 'number' ? v : essentia.take(v)]),
    );
    return values as Record<string, any>;
  };
  const moments = essentia.run('CentralMoments', e, 'pdf', 1);
  const shape = essentia.run('DistributionShape', moments.centralMoments);
  const derivative = one('DerivativeSFX');
  const tree: Tree = {
    der_av_after_max: derivative.derAvAfterMax,
    duration: signal.length / sampleRate,
    effective_duration: one('EffectiveDuration', sampleRate, 0.1).effectiveDuration,
    flatness: one('FlatnessSFX').flatness,
    logattacktime: one('LogAttackTime', sampleRate, 0.2, 0.9).logAttackTime,
    max_der_before_max: derivative.maxDerBeforeMax,
    max_to_total: one('MaxToTotal').maxToTotal,
    strongdecay: one('StrongDecay', sampleRate).strongDecay,
    tc_to_total: one('TCToTotal').TCToTotal,
    temporal_centroid: one('Centroid', 1).centroid,
    temporal_decrease: one('Decrease', 1).decrease,
    temporal_kurtosis: shape.kurtosis,
    temporal_skewness: shape.skewness,
    temporal_spread: shape.spread,
  };
  essentia.free(moments);
  e.delete();
  const p = essentia.vector(pitchTrack);
  tree.pitch_max_to_total = essentia.run('MaxToTotal', p).maxToTotal;
  tree.pitch_min_to_total = essentia.run('MinToTotal', p).minToTotal;
  tree.pitch_centroid = essentia.run('Centroid', p, 1).centroid;
  tree.pitch_after_max_to_before_max_energy_ratio = essentia.run(
    'AfterMaxToBeforeMaxEnergyRatio',
    p,
  ).afterMaxToBeforeMaxEnergyRatio;
  p.delete();
  return tree;
}

/** The reference tree of one decoded recording (mono, 44.1 kHz). */
export function referenceTree(
  essentia: EssentiaJs,
  banks: LowLevelBanks,
  signal: Float32Array,
  sampleRate = 44100,
): Tree {
  if (sampleRate !== 44100) throw new Error(`the reference chains run at 44100 Hz, not ${sampleRate}`);
  const input = essentia.vector(signal);
  try {
    const { _pitchTrack, _harmonic, ...lowlevel } = lowLevel(essentia, signal, sampleRate, input, banks);
    return {
      lowlevel,
      rhythm: rhythm(essentia, signal, sampleRate, input),
      sfx: { ...sfx(essentia, signal, sampleRate, _pitchTrack), ..._harmonic },
      tonal: tonal(essentia, signal, input),
    };
  } finally {
    (input as { delete(): void }).delete();
  }
}
