import { describe, expect, it } from 'vitest';
import { lowLevelFrames, silenceRateLimit } from './lowlevel.ts';

describe('silence rate (the reference extractor thresholds: db2lin(−dB/2) on mean frame power)', () => {
  it('puts "20 dB" at a mean power of 0.1 and "60 dB" at 0.001', () => {
    expect(silenceRateLimit(20)).toBeCloseTo(0.1, 12);
    expect(silenceRateLimit(60)).toBeCloseTo(0.001, 12);
  });
  it('counts a sine of amplitude 0.4 (power 0.08) silent at 20 dB but not at 30 dB', () => {
    const signal = new Float32Array(44100);
    for (let i = 0; i < signal.length; i++) signal[i] = 0.4 * Math.sin((2 * Math.PI * 440 * i) / 44100);
    const { series } = lowLevelFrames(signal, 44100, new Set(['silence_rate_20dB', 'silence_rate_30dB']));
    const inner = (name: string) => Array.from(series.scalar(name).slice(1, -1));
    expect(inner('silence_rate_20dB').every((v) => v === 1)).toBe(true);
    expect(inner('silence_rate_30dB').every((v) => v === 0)).toBe(true);
  });
});
