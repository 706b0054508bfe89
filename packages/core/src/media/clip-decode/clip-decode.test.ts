import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fixture } from '@earshot/fixtures';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeClip } from '../../descriptors/analyze-clip.ts';
import { makeTempDir } from '../../testing/audio.ts';
import { decodeMono } from '../decode.ts';
import { MediaError } from '../errors.ts';
import { decodeClipInProcess } from './index.ts';
import { mixDown } from './mix.ts';
import { reusableMpegSupported } from './mpeg.ts';
import { planResample, resample } from './resample.ts';

const dir = makeTempDir('earshot-clip-decode-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const RATE = 44_100;
const MUSIC = fixture('music-mix-60s');

/** A clip of the stereo music fixture (44.1 kHz), looped to `seconds`, encoded by ffmpeg. */
function encode(name: string, seconds: number, args: string[]): string {
  const file = path.join(dir, name);
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-y', '-stream_loop', '-1', '-i', MUSIC, '-t', String(seconds)],
    ...args,
    file,
  ]);
  return file;
}

/** Largest sample difference, and the difference's RMS relative to the reference's. */
function compare(mine: Float32Array, ref: Float32Array): { max: number; relRms: number } {
  let max = 0;
  let err = 0;
  let energy = 0;
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(mine[i] - ref[i]);
    max = Math.max(max, d);
    err += d * d;
    energy += ref[i] * ref[i];
  }
  return { max, relRms: Math.sqrt(err / energy) };
}

// [file, ffmpeg output options, largest sample difference allowed against ffmpeg's decode]. ffmpeg
// mixes integer sources down in their integer format, so 16-bit inputs differ by its rounding
// (≤ 1/32768 per channel); the resampled ones by float rounding, except the very last samples,
// where ffmpeg's flush ends the signal differently (the bound on the whole signal is looser).
const CASES: Array<[string, string[], number]> = [
  ['clip.mp3', ['-c:a', 'libmp3lame', '-b:a', '128k'], 1e-5],
  ['clip-48k.mp3', ['-ar', '48000', '-c:a', 'libmp3lame', '-b:a', '128k'], 1e-5],
  ['clip-22k.mp3', ['-ar', '22050', '-c:a', 'libmp3lame', '-b:a', '64k'], 1e-5],
  ['clip.flac', [], 1e-4],
  ['clip-48k-24bit.flac', ['-ar', '48000', '-sample_fmt', 's32'], 1e-5],
  ['clip.ogg', ['-c:a', 'libvorbis'], 1e-5],
  // ffmpeg decodes Opus with its own decoder, the package with libopus: close, not equal.
  ['clip-opus.ogg', ['-c:a', 'libopus', '-b:a', '96k'], 5e-3],
  ['clip.wav', [], 1e-4],
  ['clip-48k-24bit.wav', ['-ar', '48000', '-c:a', 'pcm_s24le'], 1e-5],
  ['clip-96k-float.wav', ['-ar', '96000', '-c:a', 'pcm_f32le'], 1e-5],
  ['clip-16k-8bit-mono.wav', ['-ar', '16000', '-ac', '1', '-c:a', 'pcm_u8'], 1e-5],
  ['clip.aiff', [], 1e-4],
];

describe('in-process clip decoding against ffmpeg (decodeMono) of the same file', () => {
  it.each(CASES)('%s: same length, sample-level close', async (name, args, interiorBound) => {
    const file = encode(name, 4, args);
    const mine = await decodeClipInProcess(file, { sampleRate: RATE, maxSeconds: 30 });
    const ref = await decodeMono(file, { maxSeconds: 30 });
    expect(mine, 'decoded in-process').toBeDefined();
    if (!mine) return;
    expect(mine.samples.length).toBe(ref.samples.length);
    expect(mine.duration).toBeCloseTo(4, 2);
    const edge = 64;
    const interior = compare(mine.samples.subarray(edge, -edge), ref.samples.subarray(edge, -edge));
    expect(interior.max).toBeLessThan(interiorBound);
    const whole = compare(mine.samples, ref.samples);
    expect(whole.relRms).toBeLessThan(3e-3);
  });

  it('a clip longer than the cut: its first seconds as ffmpeg -t gives them, the whole length from the header', async () => {
    const file = encode('long-32k.ogg', 40, ['-ar', '32000', '-c:a', 'libvorbis']);
    const mine = await decodeClipInProcess(file, { sampleRate: RATE, maxSeconds: 30 });
    const ref = await decodeMono(file, { maxSeconds: 30 });
    expect(mine?.samples.length).toBe(30 * RATE);
    expect(mine?.duration).toBeCloseTo(40, 1);
    expect(ref.samples.length).toBe(30 * RATE);
    expect(compare(mine?.samples ?? new Float32Array(0), ref.samples).max).toBeLessThan(1e-5);
  });

  it('an mp3 behind an ID3v2 tag longer than the first read (cover art) is still decoded here', async () => {
    const bare = encode('bare.mp3', 3, ['-c:a', 'libmp3lame', '-b:a', '128k', '-id3v2_version', '0']);
    const size = 200_000;
    const syncsafe = [21, 14, 7, 0].map((shift) => (size >> shift) & 0x7f);
    const tag = Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, ...syncsafe]), Buffer.alloc(size)]);
    const file = path.join(dir, 'tagged.mp3');
    fs.writeFileSync(file, Buffer.concat([tag, fs.readFileSync(bare)]));
    const mine = await decodeClipInProcess(file, { sampleRate: RATE, maxSeconds: 30 });
    const ref = await decodeMono(file, { maxSeconds: 30 });
    expect(mine?.samples.length).toBe(ref.samples.length);
    expect(mine?.duration).toBeCloseTo(3, 2);
    expect(compare(mine?.samples ?? new Float32Array(0), ref.samples).max).toBeLessThan(1e-5);
  });

  it('a 10-minute mp3 is cut to 30 s and still reports its whole length (Xing frame count)', async () => {
    const file = path.join(dir, 'ten-minutes.mp3');
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=600:sample_rate=22050'],
      ...['-c:a', 'libmp3lame', '-b:a', '32k', file],
    ]);
    const clip = await analyzeClip(file);
    expect(clip.analyzedSeconds).toBeCloseTo(30, 3);
    expect(clip.duration).toBeGreaterThan(599.9);
    expect(clip.duration).toBeLessThan(600.1);
    expect(clip.truncated).toBe(true);
  });
});

describe('mp3 clips by the mpg123 instance a thread keeps', () => {
  /** The package's public path on a fresh instance: every frame, mixed down afterwards. */
  async function freshDecode(file: string): Promise<Float32Array> {
    const decoder = new MPEGDecoder();
    await decoder.ready;
    try {
      const decoded = decoder.decode(new Uint8Array(fs.readFileSync(file)));
      return mixDown(decoded.channelData);
    } finally {
      decoder.free();
    }
  }

  it('is what decodes them (the package still has the fields mpeg.ts drives)', async () => {
    expect(await reusableMpegSupported()).toBe(true);
  });

  it('gives clip after clip exactly what a fresh decoder gives, whatever came before', async () => {
    // Rates, channel counts and lengths that change from one clip to the next; a clip that reached
    // its end and one cut midway leave a stream in different states for the next.
    const files = [
      encode('seq-a.mp3', 5, ['-c:a', 'libmp3lame', '-b:a', '128k']),
      encode('seq-b-48k.mp3', 4, ['-ar', '48000', '-c:a', 'libmp3lame', '-b:a', '128k']),
      encode('seq-c-long.mp3', 35, ['-c:a', 'libmp3lame', '-b:a', '96k']),
      encode('seq-d-mono.mp3', 3, ['-ac', '1', '-c:a', 'libmp3lame', '-b:a', '64k']),
    ];
    const rates = [RATE, 48_000, RATE, RATE];
    for (const round of [0, 1]) {
      for (const [i, file] of files.entries()) {
        const mine = await decodeClipInProcess(file, { sampleRate: rates[i], maxSeconds: 30 });
        const ref = await freshDecode(file);
        const want = Math.min(ref.length, 30 * rates[i]);
        expect(mine?.samples.length, `${path.basename(file)}, round ${round}`).toBe(want);
        // Asked at the file's own rate: no resampling, so the samples must be bit for bit the same.
        const samples = mine?.samples ?? new Float32Array(0);
        const bytes = (a: Float32Array, n: number) => Buffer.from(a.buffer, a.byteOffset, n * 4);
        expect(bytes(samples, samples.length).equals(bytes(ref, want))).toBe(true);
      }
    }
  });
});

describe('the resampler', () => {
  it('keeps a constant signal constant and an in-band tone at its level', () => {
    const plan = planResample(48_000, RATE);
    expect(plan?.up).toBe(147);
    if (!plan) return;
    const flat = resample(new Float32Array(4800).fill(0.5), plan);
    expect(flat.length).toBe(4410);
    for (const v of flat) expect(v).toBeCloseTo(0.5, 4);
    const tone = Float32Array.from({ length: 48_000 }, (_, i) => Math.sin((2 * Math.PI * 1000 * i) / 48_000));
    const out = resample(tone, plan);
    for (let i = 100; i < out.length - 100; i += 97)
      expect(out[i]).toBeCloseTo(Math.sin((2 * Math.PI * 1000 * i) / RATE), 3);
  });

  it('leaves rates that need more phases than ffmpeg keeps exact to ffmpeg', () => {
    expect(planResample(44_056, RATE)).toBeUndefined();
  });
});

describe('what the in-process decoder leaves to ffmpeg, and the clean 400 that follows', () => {
  /** A copy of `file` with only its first `share` of bytes. */
  function truncated(file: string, share: number, name: string): string {
    const bytes = fs.readFileSync(file);
    const out = path.join(dir, name);
    fs.writeFileSync(out, bytes.subarray(0, Math.floor(bytes.length * share)));
    return out;
  }

  const BAD: Array<[string, () => string, string]> = [
    ['a truncated WAV', () => truncated(encode('t.wav', 4, []), 0.3, 'cut.wav'), 'corrupt_file'],
    [
      'a truncated mp3',
      () => truncated(encode('t.mp3', 4, ['-b:a', '128k']), 0.3, 'cut.mp3'),
      'corrupt_file',
    ],
    ['a truncated FLAC', () => truncated(encode('t.flac', 4, []), 0.3, 'cut.flac'), 'corrupt_file'],
    [
      'a truncated Ogg',
      () => truncated(encode('t.ogg', 4, ['-c:a', 'libvorbis']), 0.3, 'cut.ogg'),
      'corrupt_file',
    ],
    ['an mp3 named .wav', () => fixture('bad-mp3-named-wav'), 'wrong_extension'],
    ['random bytes', () => fixture('bad-random'), 'corrupt_file'],
    ['an empty file', () => fixture('bad-empty'), 'empty_file'],
    ['a WAV with a lying header', () => fixture('bad-lying-header'), 'corrupt_file'],
    ['opus (not a contract format)', () => fixture('bad-unsupported-opus'), 'unsupported_format'],
  ];

  it.each(BAD)('%s', async (_, make, code) => {
    const file = make();
    expect(await decodeClipInProcess(file, { sampleRate: RATE, maxSeconds: 30 })).toBeUndefined();
    const error = await analyzeClip(file).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).status).toBe(400);
    expect((error as MediaError).code).toBe(code);
  });

  it('an m4a clip is decoded by ffmpeg (the fallback still works)', async () => {
    const file = encode('clip.m4a', 3, ['-c:a', 'aac', '-b:a', '96k']);
    expect(await decodeClipInProcess(file, { sampleRate: RATE, maxSeconds: 30 })).toBeUndefined();
    const clip = await analyzeClip(file);
    expect(clip.duration).toBeCloseTo(3, 1);
    expect(clip.analyzedSeconds).toBeCloseTo(3, 1);
  });
});
