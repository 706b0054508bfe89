import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { findPcmDataChunk } from './container-header.ts';
import { MediaError } from './errors.ts';
import { estimateBitrate, type FfprobeOutput, fileDigests, interpretProbe } from './probe.ts';

const audio = (codec: string, extra: Record<string, unknown> = {}) => ({
  index: 0,
  codec_type: 'audio',
  codec_name: codec,
  sample_rate: '44100',
  channels: 2,
  duration: '2.000000',
  ...extra,
});
const probeOf = (format: string, stream: ReturnType<typeof audio>): FfprobeOutput => ({
  streams: [stream],
  format: { format_name: format, duration: '2.000000' },
});

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return err instanceof MediaError ? err.code : 'not a MediaError';
  }
}

describe('interpretProbe', () => {
  it('reads the contract fields of a lossless file', () => {
    const p = interpretProbe(
      probeOf('wav', audio('pcm_s24le', { bits_per_sample: 24 })),
      'a.wav',
      1000,
      'abc',
    );
    expect(p).toMatchObject({
      type: 'wav',
      samplerate: 44_100,
      channels: 2,
      bitdepth: 24,
      bitrate: 0,
      duration: 2,
    });
  });

  it('gives lossy files bitrate from size and duration and no bit depth', () => {
    const p = interpretProbe(probeOf('mp3', audio('mp3')), 'a.mp3', 32_100, 'abc');
    expect(p.bitdepth).toBe(0);
    expect(p.bitrate).toBe(128);
  });

  it('keeps the user’s .aif name apart from .aiff, and flac depth from the raw sample size', () => {
    expect(interpretProbe(probeOf('aiff', audio('pcm_s16be')), 'x.aif', 1, 'm').type).toBe('aif');
    expect(interpretProbe(probeOf('aiff', audio('pcm_s16be')), 'x.aiff', 1, 'm').type).toBe('aiff');
    const flac = audio('flac', { sample_fmt: 's32', bits_per_raw_sample: '24' });
    expect(interpretProbe(probeOf('flac', flac), 'x.flac', 1, 'm').bitdepth).toBe(24);
    expect(interpretProbe(probeOf('mov,mp4,m4a,3gp,3g2,mj2', audio('aac')), 'x.m4a', 1, 'm').type).toBe(
      'm4a',
    );
  });

  it('refuses what is not an accepted sound, with the reason as the code', () => {
    expect(
      codeOf(() => interpretProbe({ streams: [], format: { format_name: 'wav' } }, 'a.wav', 1, 'm')),
    ).toBe('no_audio');
    expect(codeOf(() => interpretProbe(probeOf('caf', audio('pcm_s16le')), 'a.caf', 1, 'm'))).toBe(
      'unsupported_format',
    );
    expect(codeOf(() => interpretProbe(probeOf('ogg', audio('opus')), 'a.opus', 1, 'm'))).toBe(
      'unsupported_format',
    );
    expect(codeOf(() => interpretProbe(probeOf('mp3', audio('mp3')), 'a.wav', 1, 'm'))).toBe(
      'wrong_extension',
    );
    expect(
      codeOf(() => interpretProbe(probeOf('wav', audio('pcm_s16le', { duration: '0' })), 'a', 1, 'm')),
    ).toBe(undefined);
    const noLength: FfprobeOutput = {
      streams: [audio('pcm_s16le', { duration: 'N/A' })],
      format: { format_name: 'wav' },
    };
    expect(codeOf(() => interpretProbe(noLength, 'a.wav', 1, 'm'))).toBe('no_audio');
  });

  it('judges a file without an extension by its content', () => {
    expect(interpretProbe(probeOf('ogg', audio('vorbis')), 'upload-123', 1, 'm').type).toBe('ogg');
  });
});

describe('estimateBitrate', () => {
  it('snaps to a standard rate within 2 kbps and leaves others alone', () => {
    expect(estimateBitrate('mp3', 48_500, 3)).toBe(128);
    expect(estimateBitrate('ogg', 75_000, 3)).toBe(200);
    expect(estimateBitrate('flac', 75_000, 3)).toBe(0);
  });
});

describe('findPcmDataChunk', () => {
  function wav(declared: number, present: number): Buffer {
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'latin1');
    header.writeUInt32LE(Math.min(0xffffffff, 36 + declared), 4);
    header.write('WAVEfmt ', 8, 'latin1');
    header.writeUInt32LE(16, 16);
    header.write('data', 36, 'latin1');
    header.writeUInt32LE(declared, 40);
    return Buffer.concat([header, Buffer.alloc(present)]);
  }

  it('finds what the header declares and what is really there', () => {
    const complete = wav(1000, 1000);
    expect(findPcmDataChunk(complete, complete.length)).toEqual({ declaredBytes: 1000, presentBytes: 1000 });
    const cut = wav(1_000_000, 100);
    expect(findPcmDataChunk(cut, cut.length)).toEqual({ declaredBytes: 1_000_000, presentBytes: 100 });
  });

  it('ignores unknown-length streaming headers and anything that is not WAV or AIFF', () => {
    const streaming = wav(0xffffffff, 100);
    expect(findPcmDataChunk(streaming, streaming.length)).toBeUndefined();
    expect(findPcmDataChunk(Buffer.from('fLaC and more bytes here'), 24)).toBeUndefined();
  });
});

describe('fileDigests', () => {
  it('reads a file once for its md5 and its CRC-32 (the pack zips store the CRC)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-digests-'));
    try {
      const bytes = randomBytes(2 * 1024 * 1024 + 5); // more than one read
      const file = path.join(dir, 'a.bin');
      await fs.writeFile(file, bytes);
      expect(await fileDigests(file)).toEqual({
        md5: createHash('md5').update(bytes).digest('hex'),
        crc32: crc32(bytes),
      });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
