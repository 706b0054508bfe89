import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, synth } from '../testing/audio.ts';
import { decodeMono } from './decode.ts';
import { MediaError } from './errors.ts';

const dir = makeTempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function peak(samples: Float32Array): number {
  let max = 0;
  for (const s of samples) max = Math.max(max, Math.abs(s));
  return max;
}

describe('decodeMono', () => {
  it('mixes stereo to the mean of the channels at 44.1 kHz', async () => {
    // Left: a 0.5 sine at 441 Hz; right: silence. The mean is a 0.25 sine.
    const file = synth(path.join(dir, 'left.wav'), 'aevalsrc=0.5*sin(2*PI*441*t)|0:s=48000:d=2', [
      '-c:a',
      'pcm_f32le',
    ]);
    const signal = await decodeMono(file);
    expect(signal.sampleRate).toBe(44_100);
    expect(signal.samples.length).toBeGreaterThan(44_100 * 2 - 64);
    expect(signal.samples.length).toBeLessThan(44_100 * 2 + 64);
    expect(signal.duration).toBeCloseTo(2, 2);
    expect(peak(signal.samples)).toBeGreaterThan(0.245);
    expect(peak(signal.samples)).toBeLessThan(0.255);
  });

  it('decodes compressed input at a requested rate', async () => {
    const file = synth(path.join(dir, 'tone.flac'), 'sine=f=1000:d=1.5:sample_rate=44100');
    const signal = await decodeMono(file, { sampleRate: 22_050 });
    expect(signal.sampleRate).toBe(22_050);
    expect(Math.abs(signal.samples.length - 1.5 * 22_050)).toBeLessThan(64);
  });

  it('refuses garbage with a typed error', async () => {
    const file = path.join(dir, 'garbage.wav');
    fs.writeFileSync(file, Buffer.from('this is not audio at all, just words'.repeat(50)));
    await expect(decodeMono(file)).rejects.toBeInstanceOf(MediaError);
  });
});
