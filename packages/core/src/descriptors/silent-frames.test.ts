import { describe, expect, it } from 'vitest';
import { lowLevelFrames } from './lowlevel.ts';

// The reference's frame cutter fills a frame under 1e-10 mean power with white noise at -100 dB, and every
// descriptor reads that noise. Expected values of flat noise: zero crossings (N - 1) / 2N, the power
// centroid half the Nyquist frequency, the 85% rolloff about 0.85 of it. The native extractor's values on
// recordings with such frames (docs/similarity.md, "Same recording") agree with these.
describe('silent frames are analysed as the reference analyses them (as its faint noise)', () => {
  const names = ['zerocrossingrate', 'spectral_centroid', 'spectral_rolloff', 'silence_rate_60dB'];

  it('gives digital silence the zero crossings, centroid and rolloff of flat noise', () => {
    const { series } = lowLevelFrames(new Float32Array(44100), 44100, new Set(names));
    const inner = (name: string) => Array.from(series.scalar(name).slice(1, -1));
    for (const z of inner('zerocrossingrate')) expect(z).toBeCloseTo(2047 / 4096, 6);
    for (const c of inner('spectral_centroid')) expect(c).toBeCloseTo(11025, -1);
    for (const r of inner('spectral_rolloff')) expect(Math.abs(r - 0.85 * 22050)).toBeLessThan(50);
  });

  it('leaves a quiet frame above the limit as it is: a faint sine keeps its own centroid and crossings', () => {
    // Amplitude 1e-4: mean power 5e-9, above the reference's 1e-10 silent-frame limit.
    const signal = new Float32Array(44100);
    for (let i = 0; i < signal.length; i++) signal[i] = 1e-4 * Math.sin((2 * Math.PI * 440 * i) / 44100);
    const { series } = lowLevelFrames(signal, 44100, new Set(names));
    const inner = (name: string) => Array.from(series.scalar(name).slice(2, -2));
    for (const z of inner('zerocrossingrate')) expect(z).toBeCloseTo((2 * 440) / 44100, 2);
    for (const c of inner('spectral_centroid')) expect(Math.abs(c - 440)).toBeLessThan(30);
  });
});
