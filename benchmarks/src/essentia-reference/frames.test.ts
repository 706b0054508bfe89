import { realSamples } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { cutFrames, frameStarts, instantPower } from './frames.ts';

describe('frameStarts (streaming FrameCutter)', () => {
  it('centres the first frame on sample 0 and stops after the first frame centred at the end', () => {
    expect(frameStarts(5000, 2048, 1024)).toEqual([-1024, 0, 1024, 2048, 3072, 4096]);
    // 1764 samples (tabla_ke1's 40 ms): the third frame's centre (2048) is past the end.
    expect(frameStarts(1764, 2048, 1024)).toEqual([-1024, 0, 1024]);
    expect(frameStarts(0, 2048, 1024)).toEqual([]);
  });

  it("gives the native extractor's frame count on the calibration recordings", () => {
    // A silence rate is a whole number of frames over the count: the count the cutter gives must make
    // every native silence-rate mean a whole number of frames (one frame more or fewer would not).
    for (const { name, reference } of realSamples()) {
      const samples = Math.round(reference.metadata.audio_properties.length * 44100);
      const frames = frameStarts(samples, 2048, 1024).length;
      for (const db of ['20dB', '30dB', '60dB', '90dB']) {
        const silent = reference.lowlevel[`silence_rate_${db}`].mean * frames;
        expect(Math.abs(silent - Math.round(silent)), `${name} ${db}: ${frames} frames`).toBeLessThan(1e-3);
      }
    }
  });
});

describe('cutFrames', () => {
  it('replaces silent frames by the noise, shifted as the cutter copies a left-padded frame', () => {
    // 1e-6 (power 1e-12, silent) for 1500 samples, then 0.5.
    const signal = new Float32Array(3000).fill(1e-6, 0, 1500).fill(0.5, 1500);
    let drawn = 0;
    const noise = (n: number) => {
      drawn++;
      return Float32Array.from({ length: n }, (_, i) => (i === 0 ? 1e-9 : 0));
    };
    const frames = [...cutFrames(signal, 2048, 1024, noise)];
    expect(frames).toHaveLength(4);
    // Only frame 0 (samples −1024…1023) is silent. The cutter copies its first 1024 values (the left
    // padding) after the padding again, so the faint signal it held is gone: noise over zeros.
    expect(drawn).toBe(1);
    expect(frames[0][0]).toBeCloseTo(1e-9, 15);
    expect(frames[0][1024 + 100]).toBe(0);
    expect(frames[1][100]).toBeCloseTo(1e-6, 12);
    expect(frames[1][1600]).toBe(0.5);
    expect(frames[3][2999 - 2048]).toBe(0.5);
    expect(instantPower(frames[3])).toBeGreaterThan(0.01);
  });
});
