import fs from 'node:fs/promises';
import { type Excerpts, type PreviewEncoding, type SourceAudio, vorbisTrialArgs } from '../ffmpeg/args.ts';
import { defaultFfmpeg, type Ffmpeg } from '../ffmpeg/ffmpeg.ts';

/**
 * Vorbis previews at the contract's bitrates without libvorbis's managed mode. Managed mode holds
 * "about 192 / 80 kbps" on any material but encodes every block at up to 15 resolutions to pick
 * one, about 3× the CPU of quality mode (6.4 of the 8 CPU-s the four previews of a 66 s stereo
 * file took). In quality mode the bitrate a quality gives depends on the material (the music
 * benchmark file: 131 kbps at the nominal "192" quality 6), so a sound long enough to be worth it
 * gets trial encodings of a few short excerpts at two qualities per preview, and each preview is
 * encoded at the quality those trials point to. Where quality mode cannot reach the target (a
 * pure tone: about 110 kbps at quality 10) the preview keeps the managed bitrate.
 */

/** Below this many seconds the trials would cost about what managed mode costs: keep it. */
export const CALIBRATE_FROM_SECONDS = 30;
const EXCERPT: Omit<Excerpts, 'duration'> = { count: 6, seconds: 1.5 };
/** Trial qualities above the nominal one: most material comes out below libvorbis's nominal rates. */
const TRIAL_STEP = 3;
/** A quality whose predicted bitrate misses the target by more than this falls back to managed mode. */
const TOLERANCE = 0.1;

/**
 * libvorbis's nominal bitrates at 44.1 kHz stereo for quality -1…10 (its rate table, per channel,
 * times two). Only the curve's shape is used: the trials scale it to the material.
 */
const NOMINAL_KBPS = [45, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 500];
const MIN_Q = -1;
const MAX_Q = 10;

function nominalKbps(q: number): number {
  const x = Math.min(MAX_Q, Math.max(MIN_Q, q)) - MIN_Q;
  const i = Math.min(NOMINAL_KBPS.length - 2, Math.floor(x));
  return NOMINAL_KBPS[i] + (NOMINAL_KBPS[i + 1] - NOMINAL_KBPS[i]) * (x - i);
}

/** The quality libvorbis names for `kbps` (the inverse of the nominal curve). */
export function nominalQuality(kbps: number): number {
  for (let i = 0; i < NOMINAL_KBPS.length - 1; i++) {
    if (kbps <= NOMINAL_KBPS[i + 1]) {
      const f = (kbps - NOMINAL_KBPS[i]) / (NOMINAL_KBPS[i + 1] - NOMINAL_KBPS[i]);
      return Math.max(MIN_Q, i + f + MIN_Q);
    }
  }
  return MAX_Q;
}

export interface Trial {
  quality: number;
  kbps: number;
}

/**
 * The quality predicted to give `target` kbps, from two trial encodings of the same material:
 * the ratio of measured to nominal bitrate is interpolated linearly in quality between the two
 * trials (held constant beyond them), and the nominal curve scaled by it is solved for the target.
 * Undefined when even quality 10 is predicted to fall short.
 */
export function qualityForKbps(target: number, trials: readonly [Trial, Trial]): number | undefined {
  const [a, b] = trials[0].quality <= trials[1].quality ? trials : [trials[1], trials[0]];
  const ratioA = a.kbps / nominalKbps(a.quality);
  const ratioB = b.kbps / nominalKbps(b.quality);
  const ratio = (q: number) => {
    if (q <= a.quality || b.quality === a.quality) return ratioA;
    if (q >= b.quality) return ratioB;
    return ratioA + ((ratioB - ratioA) * (q - a.quality)) / (b.quality - a.quality);
  };
  const predicted = (q: number) => nominalKbps(q) * ratio(q);
  if (predicted(MAX_Q) < target * (1 - TOLERANCE)) return undefined;
  if (predicted(MIN_Q) >= target) return MIN_Q;
  let lo = MIN_Q;
  let hi = MAX_Q;
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    if (predicted(mid) < target) lo = mid;
    else hi = mid;
  }
  return Math.round(((lo + hi) / 2) * 100) / 100;
}

/** Whether the Vorbis previews of this source are worth calibrating (else: managed bitrate). */
export function shouldCalibrate(source: SourceAudio, duration: number): boolean {
  return duration >= CALIBRATE_FROM_SECONDS && source.samplerate >= 44_100;
}

/** Bytes of an Ogg Vorbis file that are audio: its pages after the three header packets' pages (granule position 0). */
export function oggAudioBytes(file: Buffer): number {
  let at = 0;
  let header = 0;
  while (at + 27 <= file.length && file.toString('latin1', at, at + 4) === 'OggS') {
    const segments = file[at + 26];
    let size = 27 + segments;
    for (let i = 0; i < segments; i++) size += file[at + 27 + i];
    if (file.readBigInt64LE(at + 6) === 0n) header += size;
    at += size;
  }
  return file.length - header;
}

interface Calibration {
  encoding: PreviewEncoding;
  trials: Trial[];
  quality?: number;
  done: boolean;
}

/**
 * Gives each Vorbis encoding of `encodings` the quality that lands it at its bitrate on this
 * source; encodings that quality mode cannot serve, and every other encoding, come back unchanged.
 * One ffmpeg run over excerpts encodes two trial qualities per encoding; when the quality they
 * point to lies outside the two (material far from libvorbis's nominal rates, where the
 * extrapolation is poor) a second run tries that quality and the nearest two trials decide.
 * Trial files go to `scratch` (a path prefix in a staging folder) and are removed.
 */
export async function calibrateVorbis(
  input: string,
  source: SourceAudio,
  duration: number,
  encodings: readonly PreviewEncoding[],
  scratch: string,
  options: { timeoutMs?: number; signal?: AbortSignal; ffmpeg?: Ffmpeg } = {},
): Promise<PreviewEncoding[]> {
  const vorbis = encodings.filter((e) => e.codec === 'libvorbis' && e.quality === undefined);
  if (vorbis.length === 0 || !shouldCalibrate(source, duration)) return [...encodings];
  const excerpts: Excerpts = { ...EXCERPT, duration };
  const seconds = excerpts.count * excerpts.seconds;
  const work: Calibration[] = vorbis.map((encoding) => ({ encoding, trials: [], done: false }));
  let round = 0;
  const measure = async (wanted: Array<{ item: Calibration; quality: number }>) => {
    const trials = wanted.map((w, i) => ({ ...w, output: `${scratch}-${round}-${i}.ogg` }));
    round++;
    try {
      const { ffmpeg = defaultFfmpeg(), ...runOptions } = options;
      await ffmpeg.run('ffmpeg', vorbisTrialArgs(input, source, excerpts, trials), runOptions);
      for (const t of trials) {
        const bytes = oggAudioBytes(await fs.readFile(t.output));
        t.item.trials.push({ quality: t.quality, kbps: (bytes * 8) / seconds / 1000 });
      }
    } finally {
      await Promise.all(trials.map((t) => fs.rm(t.output, { force: true })));
    }
  };
  await measure(
    work.flatMap((item) => {
      const q = Math.min(MAX_Q - 1, Math.round(nominalQuality(item.encoding.kbps)));
      return [q, Math.min(MAX_Q, q + TRIAL_STEP)].map((quality) => ({ item, quality }));
    }),
  );
  const decide = (item: Calibration, last: boolean) => {
    const byDistance = (q: number) =>
      [...item.trials].sort((x, y) => Math.abs(x.quality - q) - Math.abs(y.quality - q));
    const [a, b] = item.trials.length > 2 ? byDistance(item.quality ?? 0) : item.trials;
    const quality = qualityForKbps(item.encoding.kbps, [a, b]);
    const inside =
      quality !== undefined &&
      quality >= Math.min(a.quality, b.quality) - 0.5 &&
      quality <= Math.max(a.quality, b.quality) + 0.5;
    item.quality = quality;
    item.done = inside || quality === undefined || last;
    if (last && !inside) item.quality = undefined;
  };
  for (const item of work) decide(item, false);
  const again = work.filter((item) => !item.done);
  if (again.length > 0) {
    await measure(again.map((item) => ({ item, quality: item.quality as number })));
    for (const item of again) decide(item, true);
  }
  return encodings.map((e) => {
    const quality = work.find((item) => item.encoding === e)?.quality;
    return quality === undefined ? e : { ...e, quality };
  });
}
