import { describe, expect, it } from 'vitest';
import { audiowaveformPeaks } from './peaks.ts';

describe('audiowaveformPeaks', () => {
  it('writes the BBC audiowaveform JSON layout peaks.js reads', () => {
    const samples = new Float32Array(1300);
    for (let i = 0; i < samples.length; i++) samples[i] = 0.5 * Math.sin(i / 10);
    const peaks = audiowaveformPeaks(samples, 44_100, 512, 8);
    expect(peaks).toMatchObject({
      version: 2,
      channels: 1,
      sample_rate: 44_100,
      samples_per_pixel: 512,
      bits: 8,
    });
    expect(peaks.length).toBe(3);
    expect(peaks.data).toHaveLength(6);
    expect(peaks.data[0]).toBe(-64);
    expect(peaks.data[1]).toBe(64);
    expect(peaks.data.every((v) => Number.isInteger(v) && v >= -128 && v <= 127)).toBe(true);
  });

  it('never understates a peak and clamps to the integer range', () => {
    const samples = Float32Array.from([0.001, -0.001, 1.5, -1.5]);
    expect(audiowaveformPeaks(samples, 8000, 2, 8).data).toEqual([-1, 1, -128, 127]);
    expect(audiowaveformPeaks(samples, 8000, 4, 16).data).toEqual([-32768, 32767]);
  });
});
