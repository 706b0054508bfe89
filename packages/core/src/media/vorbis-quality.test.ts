import fs from 'node:fs';
import path from 'node:path';
import { fixture } from '@earshot/fixtures';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultFfmpeg } from '../ffmpeg/ffmpeg.ts';
import { makeTempDir } from '../testing/audio.ts';
import { processFile } from './pipeline.ts';
import { PREVIEWS } from './previews.ts';
import { probeFile } from './probe.ts';
import { calibrateVorbis, nominalQuality, oggAudioBytes, qualityForKbps } from './vorbis-quality.ts';

const work = makeTempDir('earshot-vorbis-quality-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The bitrate fields of a Vorbis identification header: managed mode writes min = max = target. */
function vorbisHeader(file: string): { max: number; nominal: number; min: number } {
  const bytes = fs.readFileSync(file);
  const at = bytes.indexOf(Buffer.from('\x01vorbis', 'latin1')) + 7;
  return {
    max: bytes.readInt32LE(at + 9),
    nominal: bytes.readInt32LE(at + 13),
    min: bytes.readInt32LE(at + 17),
  };
}

const kbpsOf = (file: string, seconds: number) => (fs.statSync(file).size * 8) / seconds / 1000;

describe('qualityForKbps', () => {
  it('inverts the nominal curve when the material sits on it', () => {
    expect(nominalQuality(192)).toBeCloseTo(6);
    expect(nominalQuality(80)).toBeCloseTo(1);
    const onCurve = qualityForKbps(192, [
      { quality: 6, kbps: 192 },
      { quality: 9, kbps: 320 },
    ]);
    expect(onCurve).toBeCloseTo(6, 1);
  });

  it('raises the quality for material that comes out below the nominal rates', () => {
    // What the 66 s music file measured: 131.7 kbps at quality 6, 222.6 at 9.
    const q = qualityForKbps(192, [
      { quality: 6, kbps: 131.7 },
      { quality: 9, kbps: 222.6 },
    ]) as number;
    expect(q).toBeGreaterThan(8);
    expect(q).toBeLessThan(9);
  });

  it('gives up when even quality 10 would fall short (a pure tone)', () => {
    const q = qualityForKbps(192, [
      { quality: 6, kbps: 53 },
      { quality: 9, kbps: 80 },
    ]);
    expect(q).toBeUndefined();
  });
});

describe('oggAudioBytes', () => {
  it('leaves out the header pages', async () => {
    const file = path.join(work, 'silence.ogg');
    await defaultFfmpeg().run('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=44100:cl=stereo', '-t', '0.1'],
      ...['-c:a', 'libvorbis', '-q:a', '6', file],
    ]);
    const size = fs.statSync(file).size;
    const audio = oggAudioBytes(fs.readFileSync(file));
    expect(audio).toBeGreaterThan(0);
    // The setup header (codebooks) is kilobytes; a tenth of a second of silence is not.
    expect(size - audio).toBeGreaterThan(2000);
  });
});

describe('calibrated Vorbis previews', () => {
  it('encode a 60 s music file in quality mode near the contract bitrates; short files stay managed', async () => {
    const music = fixture('music-mix-60s');
    const probe = await probeFile(music);
    const encodings = await calibrateVorbis(
      music,
      probe,
      probe.duration,
      [PREVIEWS['preview-hq-ogg'].encoding, PREVIEWS['preview-lq-ogg'].encoding],
      path.join(work, 'trial'),
    );
    expect(encodings.map((e) => e.quality)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(fs.readdirSync(work).filter((f) => f.startsWith('trial'))).toEqual([]);

    const out = path.join(work, 'music');
    const result = await processFile(music, out, { probe, relayPreviews: false });
    for (const key of ['preview-hq-ogg', 'preview-lq-ogg'] as const) {
      const file = result.files.previews[key];
      const target = PREVIEWS[key].encoding.kbps;
      expect(vorbisHeader(file).min, key).toBeLessThanOrEqual(0);
      expect(kbpsOf(file, probe.duration), key).toBeGreaterThan(target * 0.88);
      expect(kbpsOf(file, probe.duration), key).toBeLessThan(target * 1.12);
    }

    const short = fixture('drums-128bpm');
    const shortOut = path.join(work, 'short');
    const shortResult = await processFile(short, shortOut, { relayPreviews: true });
    expect(vorbisHeader(shortResult.files.previews['preview-hq-ogg']).min).toBe(192_000);
  }, 120_000);
});
