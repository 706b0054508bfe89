// The "same recording" set of the similarity robustness test (issue #17): for each base clip, its
// twin (3 dB quieter, re-encoded as 128k mp3) and two distractors made from the same material
// (another key, another tempo). Generated with the real ffmpeg from the generated fixtures.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fixture, realSampleFile } from '@earshot/fixtures';

export interface TwinBase {
  /** A name for reports: fixture name plus offset. */
  name: string;
  /** The generated fixture the clip is cut from, or with `sample` the Sonic Pi sample's name. */
  fixture: string;
  /** True when `fixture` names a real Sonic Pi sample (npm supersonic-scsynth-samples), not a generated file. */
  sample?: boolean;
  /** Where in it the clip starts, seconds. */
  offset: number;
}

const DRUM_TEMPOS = ['80', '100', '128', '170'];
const NOISES = ['noise-pink', 'noise-white', 'noise-pink-burst', 'noise-white-burst'];

/** The first set (33 bases): tones, chords, cadences, drums, clicks, noise and music. */
export const TWIN_BASES_FIRST: readonly TwinBase[] = [
  ...['c-major', 'd-major', 'e-major', 'f-major', 'g-major', 'a-major', 'a-minor', 'e-minor'].map((key) =>
    base(`cadence-${key}`),
  ),
  ...['c-major', 'fs-major', 'as-major', 'd-minor', 'gs-minor'].map((key) => base(`triad-${key}`)),
  ...['a2', 'c4', 'fs3', 'ds5'].map((note) => base(`harmonic-${note}`)),
  ...['a4', 'c3', 'gs6'].map((note) => base(`sine-${note}`)),
  ...DRUM_TEMPOS.map((bpm) => base(`drums-${bpm}bpm`)),
  ...['90', '150'].map((bpm) => base(`clicks-${bpm}bpm`)),
  ...NOISES.map((name) => base(name)),
  // Two far-apart parts only: the mix repeats its material, so nearby parts are the same recording.
  ...[0, 30].map((offset) => base('music-mix-60s', offset)),
  base('loop-seamless-120bpm'),
];

const PITCH_CLASSES = ['c', 'cs', 'd', 'ds', 'e', 'f', 'fs', 'g', 'gs', 'a', 'as', 'b'];
const KEYS = PITCH_CLASSES.flatMap((pc) => [`${pc}-major`, `${pc}-minor`]);
/** Every note of the tone fixtures (the same 21 for sines and harmonic tones). */
const NOTES = [
  ...['a0', 'c1', 'a1', 'c2', 'cs2', 'a2', 'c3', 'fs3', 'a3', 'c4', 'a4', 'as4', 'c5', 'ds5', 'a5'],
  ...['c6', 'a6', 'gs6', 'c7', 'a7', 'c8'],
];
/**
 * Real recordings that are not calibration ones: every Sonic Pi loop or guitar phrase of at least
 * 4 s outside the 40 reference recordings (drum loops, percussion, a tabla loop, guitar, textures).
 */
const REAL_PHRASES = [
  'loop_3d_printer',
  'loop_compus',
  'loop_garzul',
  'loop_mika',
  'loop_safari',
  'loop_tabla',
  'loop_weirdo',
  'guit_em9',
  'guit_e_fifths',
  'guit_e_slide',
  'tbd_fxbed_loop',
];

/**
 * The widened set: every generated fixture of those kinds (each key of the cadences and triads,
 * each note of the sines and harmonic tones, each click and drum tempo, the noises, two parts of
 * the music mix, the loop) and the real phrases above. A superset of the first set.
 */
export const TWIN_BASES: readonly TwinBase[] = [
  ...KEYS.map((key) => base(`cadence-${key}`)),
  ...KEYS.map((key) => base(`triad-${key}`)),
  ...NOTES.map((note) => base(`harmonic-${note}`)),
  ...NOTES.map((note) => base(`sine-${note}`)),
  ...DRUM_TEMPOS.map((bpm) => base(`drums-${bpm}bpm`)),
  ...['60', '90', '120', '150', '180'].map((bpm) => base(`clicks-${bpm}bpm`)),
  ...NOISES.map((name) => base(name)),
  ...[0, 30].map((offset) => base('music-mix-60s', offset)),
  base('loop-seamless-120bpm'),
  ...REAL_PHRASES.map((name) => ({ name, fixture: name, offset: 0, sample: true })),
];

function base(fixtureName: string, offset = 0): TwinBase {
  return { name: offset ? `${fixtureName}@${offset}s` : fixtureName, fixture: fixtureName, offset };
}

export const TWIN_CLIP_SECONDS = 4;
/** The twin: the same audio this much quieter, then lossy. */
export const TWIN_GAIN_DB = -3;
export const TWIN_MP3_BITRATE = '128k';
/** Distractors: the same material moved by this many semitones (tempo kept), and played faster. */
export const DISTRACTOR_SEMITONES = 3;
export const DISTRACTOR_TEMPO = 1.2;

export interface TwinFiles {
  base: TwinBase;
  original: string;
  /** 3 dB quieter only (the level half of the twin). */
  quieter: string;
  twin: string;
  otherKey: string;
  otherTempo: string;
}

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
}

/** Writes the four files of every base under `dir` (44.1 kHz mono), reusing files already there. */
export function makeTwinSet(dir: string, bases: readonly TwinBase[] = TWIN_BASES): TwinFiles[] {
  fs.mkdirSync(dir, { recursive: true });
  const ratio = 2 ** (DISTRACTOR_SEMITONES / 12);
  return bases.map((b) => {
    const stem = path.join(dir, b.name.replace(/[^a-z0-9-]/gi, '_'));
    const files: TwinFiles = {
      base: b,
      original: `${stem}.wav`,
      quieter: `${stem}.quieter.wav`,
      twin: `${stem}.twin.mp3`,
      otherKey: `${stem}.key.wav`,
      otherTempo: `${stem}.tempo.wav`,
    };
    const wav = ['-ac', '1', '-ar', '44100', '-c:a', 'pcm_s16le'];
    if (!fs.existsSync(files.original)) {
      const cut = ['-ss', String(b.offset), '-t', String(TWIN_CLIP_SECONDS)];
      const source = b.sample ? realSampleFile(b.fixture) : fixture(b.fixture);
      ffmpeg([...cut, '-i', source, ...wav, files.original]);
    }
    if (!fs.existsSync(files.quieter)) {
      ffmpeg(['-i', files.original, '-af', `volume=${TWIN_GAIN_DB}dB`, ...wav, files.quieter]);
    }
    if (!fs.existsSync(files.twin)) {
      const lossy = ['-c:a', 'libmp3lame', '-b:a', TWIN_MP3_BITRATE];
      ffmpeg(['-i', files.original, '-af', `volume=${TWIN_GAIN_DB}dB`, ...lossy, files.twin]);
    }
    if (!fs.existsSync(files.otherKey)) {
      // Resampling moves pitch and tempo together; atempo puts the tempo back.
      const shift = `asetrate=${Math.round(44100 * ratio)},aresample=44100,atempo=${1 / ratio}`;
      ffmpeg(['-i', files.original, '-af', shift, ...wav, files.otherKey]);
    }
    if (!fs.existsSync(files.otherTempo)) {
      ffmpeg(['-i', files.original, '-af', `atempo=${DISTRACTOR_TEMPO}`, ...wav, files.otherTempo]);
    }
    return files;
  });
}
