import fs from 'node:fs';
import path from 'node:path';
import { type BadKind, type FixtureEntry, fixture, loadManifest } from '@earshot/fixtures';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { previewSampleRate } from '../ffmpeg/args.ts';
import { defaultFfmpeg } from '../ffmpeg/ffmpeg.ts';
import { makeTempDir } from '../testing/audio.ts';
import { MediaError, type MediaErrorCode } from './errors.ts';
import { IMAGE_FILES, IMAGE_SIZES } from './images.ts';
import { PEAKS_FILE, processFile } from './pipeline.ts';
import { PREVIEW_KEYS, PREVIEWS } from './previews.ts';

const manifest = loadManifest();
const goodFormats = manifest.fixtures.filter((f) => f.group === 'format');
const badFixtures = manifest.fixtures.filter((f) => f.group === 'bad');
const work = makeTempDir('earshot-pipeline-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface PreviewFacts {
  codec: string;
  sampleRate: number;
  channels: number;
  /** kbps of the audio packets alone (container headers would inflate short files). */
  kbps: number;
}

async function previewFacts(file: string): Promise<PreviewFacts> {
  const args = [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_streams',
    '-show_packets',
    '-show_format',
    '-i',
    file,
  ];
  const json = JSON.parse((await defaultFfmpeg().run('ffprobe', args)).stdout.toString()) as {
    streams: Array<{ codec_name: string; sample_rate: string; channels: number }>;
    packets: Array<{ size: string }>;
    format: { duration: string };
  };
  const bytes = json.packets.reduce((sum, p) => sum + Number(p.size), 0);
  return {
    codec: json.streams[0].codec_name,
    sampleRate: Number(json.streams[0].sample_rate),
    channels: json.streams[0].channels,
    kbps: (bytes * 8) / Number(json.format.duration) / 1000,
  };
}

/** Folders left in `dir` that are not ours to expect: nothing may remain after a failure. */
function leftovers(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('processFile on every good format fixture', () => {
  it.each(goodFormats.map((f) => [f.name, f] as [string, FixtureEntry]))('%s', async (_name, entry) => {
    const out = path.join(work, entry.name);
    const result = await processFile(fixture(entry.name), out);

    // Probe values against the manifest's truth.
    const probe = result.probe;
    expect(probe.type).toBe(entry.format);
    expect(probe.samplerate).toBe(entry.sampleRate);
    expect(probe.channels).toBe(entry.channels);
    expect(probe.bitdepth).toBe(entry.bitDepth ?? 0);
    expect(probe.filesize).toBe(entry.filesize);
    expect(probe.md5).toBe(entry.md5);
    // Lossy encoders add priming/padding samples around the content.
    expect(Math.abs(probe.duration - (entry.duration ?? 0))).toBeLessThan(entry.bitDepth ? 0.001 : 0.06);
    expect(probe.raw.streams?.length).toBeGreaterThan(0);

    // Every file is there, and only those (no staging folder left).
    const expected = [
      ...PREVIEW_KEYS.map((k) => PREVIEWS[k].file),
      ...Object.values(IMAGE_FILES),
      PEAKS_FILE,
    ];
    expect(fs.readdirSync(out).sort()).toEqual(expected.sort());

    for (const [key, file] of Object.entries(IMAGE_FILES)) {
      const meta = await sharp(path.join(out, file)).metadata();
      const size = IMAGE_SIZES[key.endsWith('_m') ? 'm' : 'l'];
      expect([meta.format, meta.width, meta.height]).toEqual([
        key.startsWith('waveform') ? 'png' : 'jpeg',
        size.width,
        size.height,
      ]);
    }

    const peaks = JSON.parse(fs.readFileSync(path.join(out, PEAKS_FILE), 'utf8'));
    expect(peaks.length).toBe(Math.ceil((result.decodedDuration * 44_100) / peaks.samples_per_pixel));

    for (const key of PREVIEW_KEYS) {
      const facts = await previewFacts(result.files.previews[key]);
      const { encoding } = PREVIEWS[key];
      expect(facts.codec).toBe(encoding.codec === 'libmp3lame' ? 'mp3' : 'vorbis');
      expect(facts.sampleRate).toBe(previewSampleRate(entry.sampleRate ?? 0));
      expect(facts.channels).toBe(Math.min(2, entry.channels ?? 0));
      // The bitrate contract holds where the encoders can hold it: 44.1 kHz and up, and a sound
      // long enough for the rate to mean something.
      if ((entry.sampleRate ?? 0) >= 44_100 && (entry.duration ?? 0) >= 1) {
        expect(facts.kbps, key).toBeGreaterThan(encoding.kbps * 0.85);
        expect(facts.kbps, key).toBeLessThan(encoding.kbps * 1.15);
      }
    }
  });
});

const refusals: Record<BadKind, MediaErrorCode[]> = {
  empty: ['empty_file'],
  truncated: ['corrupt_file'],
  random: ['corrupt_file', 'unsupported_format'],
  'wrong-extension': ['wrong_extension', 'corrupt_file'],
  'lying-header': ['corrupt_file'],
  'zero-length': ['no_audio'],
  unsupported: ['unsupported_format'],
};

describe('processFile refuses every bad fixture cleanly', () => {
  it.each(badFixtures.map((f) => [f.name, f] as [string, FixtureEntry]))('%s', async (_name, entry) => {
    const out = path.join(work, 'bad', entry.name);
    const error = await processFile(fixture(entry.name), out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    const mediaError = error as MediaError;
    expect(refusals[entry.bad as BadKind]).toContain(mediaError.code);
    expect(mediaError.status).toBe(400);
    // A sentence for a person, not an ffmpeg log line.
    expect(mediaError.message).toMatch(/^The file /);
    expect(mediaError.message).not.toMatch(/ffmpeg|ffprobe|pipe:|0x[0-9a-f]/i);
    expect(leftovers(out)).toEqual([]);
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('processFile on a float WAV with corrupt samples', () => {
  /** 2 s of a 440 Hz sine as 32-bit float WAV, with a few words that are not audio. */
  function floatWav(file: string, corrupt: number[]): void {
    const rate = 44_100;
    const samples = new Float32Array(rate * 2).map((_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / rate));
    corrupt.forEach((value, k) => {
      samples[samples.length - 1 - k * 1000] = value;
    });
    const data = Buffer.from(samples.buffer);
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36 + data.length, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(3, 20); // IEEE float
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(rate, 24);
    header.writeUInt32LE(rate * 4, 28);
    header.writeUInt16LE(4, 32);
    header.writeUInt16LE(32, 34);
    header.write('data', 36);
    header.writeUInt32LE(data.length, 40);
    fs.writeFileSync(file, Buffer.concat([header, data]));
  }

  // LAME aborted on an assertion for each of these (found by the soak benchmark's uploads).
  it('makes every preview and hands analysis a finite signal (NaN, ±Infinity, 3.4e38)', async () => {
    const input = path.join(work, 'corrupt-float.wav');
    floatWav(input, [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 3.4e38]);
    const out = path.join(work, 'corrupt-float');
    let finite = false;
    const result = await processFile(input, out, {
      analyze: async (signal) => {
        finite = signal.samples.every((x) => Number.isFinite(x) && Math.abs(x) <= 8);
        return { files: [], descriptorCount: 0 };
      },
    });
    expect(finite).toBe(true);
    for (const key of PREVIEW_KEYS) {
      const facts = await previewFacts(path.join(out, PREVIEWS[key].file));
      expect(facts.sampleRate).toBe(44_100);
    }
    expect(result.probe.bitdepth).toBe(32);
  });
});

describe('processFile: analysis hook, atomic outputs, timeouts', () => {
  it('hands the one decoded signal to the analysis hook and moves its files with the rest', async () => {
    const out = path.join(work, 'hooked');
    const entry = manifest.fixtures.find((f) => f.name === 'fmt-flac-24') as FixtureEntry;
    const result = await processFile(fixture(entry.name), out, {
      analyze: async (signal, ctx) => {
        expect(signal.sampleRate).toBe(44_100);
        expect(Math.abs(signal.samples.length - (entry.duration ?? 0) * 44_100)).toBeLessThan(64);
        expect(ctx.probe.md5).toBe(entry.md5);
        fs.mkdirSync(path.join(ctx.outDir, 'analysis'));
        fs.writeFileSync(path.join(ctx.outDir, 'analysis', 'stats.json'), '{"ok":true}');
        return { files: ['analysis/stats.json'], descriptorCount: 1 };
      },
    });
    expect(result.files.analysis).toEqual([path.join(out, 'analysis', 'stats.json')]);
    expect(fs.readFileSync(path.join(out, 'analysis', 'stats.json'), 'utf8')).toBe('{"ok":true}');
    expect(result.analysis).toEqual({ descriptorCount: 1 });
  });

  it('leaves nothing behind when the analysis hook fails, and keeps what the folder held before', async () => {
    const out = path.join(work, 'hook-fails');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'keep.txt'), 'mine');
    const error = await processFile(fixture('fmt-wav-16'), out, {
      analyze: async () => {
        throw new Error('descriptor extraction exploded');
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('descriptor extraction exploded');
    expect(leftovers(out)).toEqual(['keep.txt']);
  });

  it('stops ffmpeg at the timeout with a typed error and no output', async () => {
    const out = path.join(work, 'timeout');
    const error = await processFile(fixture('music-mix-60s'), out, { timeoutMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe('timeout');
    expect(fs.existsSync(out)).toBe(false);
  });
});
