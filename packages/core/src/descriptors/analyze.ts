import { averageLoudness } from './average-loudness.ts';
import { trackBeats } from './beat-tracker.ts';
import { beatsLoudness } from './beats-loudness.ts';
import { dynamicComplexity } from './dynamic-complexity.ts';
import { envelopeDescriptors } from './envelope.ts';
import { defaultEssentiaBeatTracker } from './essentia-client.ts';
import type { EssentiaResult } from './essentia-protocol.ts';
import { estimateRt60, isReverberant, isSingleEvent, soundBounds } from './events.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import { type FramesFile, framesGroup } from './frames-file.ts';
import { extractKey } from './key.ts';
import { loopBpmConfidence } from './loop-bpm-confidence.ts';
import { ebuR128 } from './loudness.ts';
import { LOWLEVEL_FRAME, LOWLEVEL_HOP, lowLevelFrames } from './lowlevel.ts';
import { onsetRate } from './onset-rate.ts';
import { detectOnsets } from './onsets.ts';
import { percivalBpm } from './percival-bpm.ts';
import { pitchEnvelope } from './pitch-envelope.ts';
import { soundStartFrame } from './start-stop-silence.ts';
import { vectorStats } from './statistics.ts';
import { refineTempo } from './tempo.ts';
import { timbralScores } from './timbral.ts';
import { TONAL_FRAME, TONAL_HOP, tonalFrames } from './tonal.ts';
import type { AnalyzeOptions, GroupTimings, VariantATree, VariantB } from './types.ts';
import { type AnalysisParts, buildVariantA } from './variant-a.ts';
import { buildVariantB } from './variant-b.ts';

export interface DescriptorAnalysis {
  variantB: VariantB;
  variantA: VariantATree;
  frames?: FramesFile;
  /**
   * Milliseconds per descriptor group; with `rhythm: 'essentia'`, `essentia` is the worker thread's own time
   * (it overlaps the rest).
   */
  timings: GroupTimings;
}

/** Frames whose pitch confidence reaches this are "voiced": the warmth model's f0 comes from them. */
const VOICED_CONFIDENCE = 0.85;

/**
 * Lets the event loop run between the groups: a minute of audio is seconds of work, and meanwhile
 * the process that runs the analysis (the media stage of `earshot serve`) has processes to start as
 * others end (the previews wait for their Vorbis trials) and requests to answer.
 */
const letOthersRun = () => new Promise<void>((resolve) => setImmediate(resolve));

type Clock = () => number;
const wallClock: Clock = () => performance.now();
const cpuClock: Clock = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Group timings read this clock; analyses may run concurrently, so it travels with the timings object. */
const clocks = new WeakMap<GroupTimings, Clock>();

function timed<T>(timings: GroupTimings, group: string, run: () => T): T {
  const clock = clocks.get(timings) ?? wallClock;
  const start = clock();
  const result = run();
  timings[group] = (timings[group] ?? 0) + (clock() - start);
  return result;
}

/** The median of the pitch track's voiced pitches (upper median), 0 when no frame is voiced. */
function voicedMedianPitch(pitch: Float32Array, confidence: Float32Array, energy: Float32Array): number {
  const voiced: number[] = [];
  for (let i = 0; i < pitch.length; i++) {
    if (confidence[i] >= VOICED_CONFIDENCE && energy[i] > 1e-8 && pitch[i] > 0) voiced.push(pitch[i]);
  }
  if (voiced.length === 0) return 0;
  voiced.sort((a, b) => a - b);
  return voiced[voiced.length >> 1];
}

/**
 * The full analysis of a mono signal: both variants, optionally the frames file, and the time each group
 * took. Beats come from our tracker (beat-tracker.ts) unless `rhythm: 'essentia'` asks for essentia.js.
 */
export async function analyzeSignal(
  samples: Float32Array,
  sampleRate: number,
  options: AnalyzeOptions = {},
): Promise<DescriptorAnalysis> {
  await loadFloat32Fft();
  const timings: GroupTimings = {};
  const clock = options.profile ? cpuClock : wallClock;
  clocks.set(timings, clock);
  // The essentia.js reference backend runs in its worker thread while the frame descriptors run here.
  const useEssentia = options.rhythm === 'essentia';
  const essentiaStart = clock();
  const essentiaPromise = useEssentia
    ? (options.essentia ?? defaultEssentiaBeatTracker()).track(samples, sampleRate).then((r) => {
        timings.essentia_wall = clock() - essentiaStart;
        return r;
      })
    : undefined;
  if (options.profile && essentiaPromise) await essentiaPromise;
  const duration = samples.length / sampleRate;
  const lowlevel = timed(timings, 'lowlevel', () => lowLevelFrames(samples, sampleRate));
  const series = lowlevel.series;
  await letOthersRun();
  const tonal = timed(timings, 'tonal', () => tonalFrames(samples, sampleRate));
  const key = timed(timings, 'key', () => extractKey(samples, sampleRate));
  await letOthersRun();
  const loudness = options.loudness ?? timed(timings, 'loudness', () => ebuR128(samples, sampleRate));
  const { envelope, bounds, singleEvent, rt60 } = timed(timings, 'sfx', () => ({
    envelope: envelopeDescriptors(samples, sampleRate),
    bounds: soundBounds(samples, sampleRate),
    singleEvent: isSingleEvent(samples, sampleRate),
    rt60: estimateRt60(samples, sampleRate),
  }));
  const frameEnergy = series.scalar('frame_energy');
  // Our own detector's onsets only check the tracker's tempo; the onsets the tree reports are the
  // reference's OnsetRate's.
  const tempoOnsets = timed(timings, 'onsets', () =>
    detectOnsets(series.scalar('onset_strength'), frameEnergy, samples, sampleRate, LOWLEVEL_HOP),
  );
  const onsets = timed(timings, 'onsets', () => onsetRate(samples, sampleRate));
  const voicedMedian = timed(timings, 'pitch_summary', () =>
    voicedMedianPitch(series.scalar('pitch'), series.scalar('pitch_instantaneous_confidence'), frameEnergy),
  );

  await letOthersRun();
  const tracked: EssentiaResult = essentiaPromise
    ? await essentiaPromise
    : timed(timings, 'beats', () => {
        const beats = trackBeats(samples, sampleRate);
        return { bpm: beats.bpm, bpmConfidence: beats.confidence, ticks: beats.ticks, bpmIntervals: [] };
      });
  const tempo = timed(timings, 'rhythm', () => refineTempo(tracked.bpm, tracked.ticks, tempoOnsets));
  // The grid stays the tracker's (beats on its frame grid, as the reference's): the bpm histogram reads its
  // intervals. Only the tempo goes through the octave check and the fit on the onsets.
  const beatGrid = {
    ...tracked,
    bpm: tempo.bpm,
    bpmIntervals: tracked.ticks.slice(1).map((t, i) => t - tracked.ticks[i]),
  };
  const beats = timed(timings, 'rhythm', () => beatsLoudness(samples, sampleRate, beatGrid.ticks));
  await letOthersRun();
  // The reference's loop estimate: Percival's tempo over the whole signal, and how well a whole number
  // of beats of that tempo rounded fits the sound's length.
  const loop = timed(timings, 'loop', () => {
    const bpm = percivalBpm(samples, sampleRate);
    return { bpm, confidence: loopBpmConfidence(samples, Math.round(bpm), sampleRate) };
  });

  const parts: AnalysisParts = {
    sampleRate,
    duration,
    lowlevel: series,
    lowlevelHop: LOWLEVEL_HOP,
    tonal: tonal.series,
    chords: tonal.chords,
    chordStrength: tonal.chordStrength,
    key,
    loudness,
    envelope,
    beatGrid,
    onsets,
    beatsLoudness: beats.loudness,
    beatsBandRatios: beats.bandRatios,
    bpmLoop: loop.bpm,
    bpmLoopConfidence: loop.confidence,
    soundStartFrame: soundStartFrame(frameEnergy),
    soundStopFrame: Math.floor((bounds.stopTime * sampleRate) / LOWLEVEL_HOP),
    // The frame energies are mean powers: the reference's loudness reads each frame's Σx².
    averageLoudness: averageLoudness(frameEnergy.map((e) => e * LOWLEVEL_FRAME)),
    dynamicComplexity: dynamicComplexity(samples, sampleRate),
    pitchSfx: pitchEnvelope(series.scalar('pitch')),
  };
  const variantA = timed(timings, 'statistics', () => buildVariantA(parts));

  const variantB = timed(timings, 'timbral_and_variant_b', () => {
    const silentFrame = series.scalar('silence_rate_60dB');
    const dissonance = series.scalar('dissonance');
    let dSum = 0;
    let dCount = 0;
    for (let i = 0; i < dissonance.length; i++) {
      if (!silentFrame[i]) {
        dSum += dissonance[i];
        dCount++;
      }
    }
    const bark = series.vectors.get('barkbands');
    const timbral = timbralScores({
      averagePower: lowlevel.averagePower,
      binHz: lowlevel.binHz,
      barkMean: bark ? vectorStats(bark.data, bark.dims).mean : [],
      pitch: voicedMedian,
      logAttackTime: envelope.logAttackTime,
      effectiveDuration: envelope.effectiveDuration,
      dissonance: dCount ? dSum / dCount : 0,
    });
    return buildVariantB(variantA, {
      timbral,
      reverbness: isReverberant(rt60),
      singleEvent,
    });
  });

  let frames: FramesFile | undefined;
  if (options.frames) {
    frames = timed(timings, 'frames_file', () => ({
      format: 'earshot-frames' as const,
      version: 1 as const,
      sample_rate: sampleRate,
      encoding: 'float32le-base64' as const,
      groups: {
        lowlevel: framesGroup(series, LOWLEVEL_FRAME, LOWLEVEL_HOP, sampleRate),
        tonal: framesGroup(tonal.series, TONAL_FRAME, TONAL_HOP, sampleRate),
      },
    }));
  }
  if (useEssentia) timings.essentia = options.profile ? timings.essentia_wall : (tracked.elapsedMs ?? 0);
  return { variantB, variantA, frames, timings };
}
