import { fixture, loadManifest } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { probeFileHeader, probeHeader } from './header-probe.ts';
import { checkProbedLength } from './probe.ts';

/** A canonical 44-byte WAV header (+ `dataBytes` of silence) with the given format fields. */
function wav(
  options: { tag?: number; channels?: number; rate?: number; bits?: number; dataBytes?: number } = {},
): Buffer {
  const { tag = 1, channels = 2, rate = 44_100, bits = 16, dataBytes = 400 } = options;
  const b = Buffer.alloc(44 + dataBytes);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + dataBytes, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(tag, 20);
  b.writeUInt16LE(channels, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE((rate * channels * bits) / 8, 28);
  b.writeUInt16LE((channels * bits) / 8, 32);
  b.writeUInt16LE(bits, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(dataBytes, 40);
  return b;
}

describe('probeHeader', () => {
  it('reads a plain PCM WAV', () => {
    expect(probeHeader(wav(), 'take.wav')).toEqual({
      type: 'wav',
      samplerate: 44_100,
      channels: 2,
      bitdepth: 16,
      // 400 bytes of 16-bit stereo: 100 frames.
      duration: 100 / 44_100,
    });
    expect(probeHeader(wav({ tag: 3, bits: 32, channels: 1, rate: 48_000 }), 'x.WAVE')).toMatchObject({
      type: 'wav',
      bitdepth: 32,
    });
  });

  it('leaves to ffprobe whatever it does not fully understand', () => {
    // ADPCM, 12-bit "PCM", a streamed length, no samples, too many channels, an odd rate.
    expect(probeHeader(wav({ tag: 2 }), 'a.wav')).toBeUndefined();
    expect(probeHeader(wav({ bits: 12 }), 'a.wav')).toBeUndefined();
    const streamed = wav();
    streamed.writeUInt32LE(0xffffffff, 40);
    expect(probeHeader(streamed, 'a.wav')).toBeUndefined();
    expect(probeHeader(wav({ dataBytes: 0 }), 'a.wav')).toBeUndefined();
    expect(probeHeader(wav({ channels: 32, bits: 8 }), 'a.wav')).toBeUndefined();
    expect(probeHeader(wav({ rate: 100 }), 'a.wav')).toBeUndefined();
    // A byte rate that disagrees with the rest of the format.
    const lying = wav();
    lying.writeUInt32LE(1, 28);
    expect(probeHeader(lying, 'a.wav')).toBeUndefined();
    // Cut before the data chunk.
    expect(probeHeader(wav().subarray(0, 40), 'a.wav')).toBeUndefined();
  });

  it('judges the name as interpretProbe does: a disagreement goes to ffprobe', () => {
    expect(probeHeader(wav(), 'take.flac')).toBeUndefined();
    expect(probeHeader(wav(), 'take.txt')).toBeUndefined();
    expect(probeHeader(wav(), 'stored-without-extension')).toMatchObject({ type: 'wav' });
  });

  it('reads the WAVE_FORMAT_EXTENSIBLE sub-format', () => {
    const plain = wav({ channels: 6, bits: 24, dataBytes: 36 });
    const b = Buffer.alloc(plain.length + 24);
    plain.copy(b, 0, 0, 36);
    b.writeUInt32LE(40, 16);
    b.writeUInt16LE(0xfffe, 20);
    b.writeUInt16LE(22, 36); // cbSize
    b.writeUInt16LE(24, 38); // valid bits
    b.writeUInt32LE(0x3f, 40); // channel mask
    Buffer.from('0100000000001000800000aa00389b71', 'hex').copy(b, 44);
    b.write('data', 60, 'latin1');
    b.writeUInt32LE(36, 64);
    expect(probeHeader(b, 'six.wav')).toMatchObject({ type: 'wav', channels: 6, bitdepth: 24 });
    b[45] = 0x01; // not Microsoft's GUID any more
    expect(probeHeader(b, 'six.wav')).toBeUndefined();
  });
});

describe('probeFileHeader on the fixture set', () => {
  const manifest = loadManifest();

  it('agrees with ffprobe (the manifest’s probe truth) on every good file it reads', async () => {
    let read = 0;
    for (const entry of manifest.fixtures.filter((f) => !f.bad)) {
      const verdict = await probeFileHeader(fixture(entry.name), entry.file);
      if (!verdict) {
        // Only the compressed formats go to ffprobe; every WAV, AIFF and FLAC here is read.
        expect(['ogg', 'mp3', 'm4a'], entry.name).toContain(entry.format);
        continue;
      }
      read++;
      expect(verdict, entry.name).toEqual({
        type: entry.format,
        samplerate: entry.sampleRate,
        channels: entry.channels,
        bitdepth: entry.bitDepth,
        duration: expect.closeTo(entry.duration ?? -1, 3),
      });
    }
    expect(read).toBeGreaterThan(100);
  });

  it('leaves every bad file to ffprobe, except a lying header, which the length check refuses', async () => {
    for (const entry of manifest.fixtures.filter((f) => f.bad)) {
      const verdict = await probeFileHeader(fixture(entry.name), entry.file).catch(() => undefined);
      if (entry.name !== 'bad-lying-header') {
        expect(verdict, entry.name).toBeUndefined();
        continue;
      }
      expect(verdict).toMatchObject({ type: 'wav' });
      await expect(checkProbedLength(fixture(entry.name), { type: 'wav' })).rejects.toMatchObject({
        code: 'corrupt_file',
      });
    }
  });
});
