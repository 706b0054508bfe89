// The "same recording" set of the similarity robustness test (issue #17): for each base clip, its
// twin (3 dB quieter, re-encoded as 128k mp3) and two distractors made from the same material
// (another key, another tempo). Generated with the real ffmpeg from the generated fixtures.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fixture } from '@earshot/fixtures';

export interface TwinBase {
  /** A name for reports: fixture name plus offset. */
  name: string;
  /** The generated fixture the clip is cut from. */
  fixture: string;
  /** Where in it the clip starts, seconds. */
  offset: number;
}

/** Tones, chords, cadences, drums, clicks, noise and music: a few dozen short clips. */
export const TWIN_BASES: readonly TwinBase[] = [
  ...['c-major', 'd-major', 'e-major', 'f-major', 'g-major', 'a-major', 'a-minor', 'e-minor'].map((key) =>
    base(`cadence-${key}`),
  ),
  ...['c-major', 'fs-major', 'as-major', 'd-minor', 'gs-minor'].map((key) => base(`triad-${key}`)),
  ...['a2', 'c4', 'fs3', 'ds5'].map((note) => base(`harmonic-${note}`)),
  ...['a4', 'c3', 'gs6'].map((note) => base(`sine-${note}`)),
  ...['80', '100', '128', '170'].map((bpm) => base(`drums-${bpm}bpm`)),
  ...['90', '150'].map((bpm) => base(`clicks-${bpm}bpm`)),
  ...['noise-pink', 'noise-white', 'noise-pink-burst', 'noise-white-burst'].map((name) => base(name)),
  // Two far-apart parts only: the mix repeats its material, so nearby parts are the same recording.
  ...[0, 30].map((offset) => base('music-mix-60s', offset)),
  base('loop-seamless-120bpm'),
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
      ffmpeg([...cut, '-i', fixture(b.fixture), ...wav, files.original]);
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
