import { describe, expect, it } from 'vitest';
import { PitchYinFFT } from './pitch-yinfft.ts';
import { MagnitudeSpectrum } from './spectrum.ts';

const SR = 44_100;
const N = 2048;

function spectrumOf(signal: (t: number) => number): Float32Array {
  const frame = new Float32Array(N);
  for (let i = 0; i < N; i++) frame[i] = signal(i / SR);
  const mag = new Float32Array(N / 2 + 1);
  new MagnitudeSpectrum(N).compute(frame, mag);
  return mag;
}

describe('PitchYinFFT (Essentia PitchYinFFT defaults on a Blackman-Harris spectrum)', () => {
  const yin = new PitchYinFFT(N, SR);

  it.each([220, 440, 1000])('finds a harmonic tone at %d Hz within 1%', (f0) => {
    const mag = spectrumOf((t) =>
      [1, 0.6, 0.4, 0.25].reduce((s, a, h) => s + a * Math.sin(2 * Math.PI * f0 * (h + 1) * t), 0),
    );
    expect(Math.abs(yin.pitch(mag) / f0 - 1)).toBeLessThan(0.01);
  });

  it('finds the missing fundamental of harmonics 2–5 of 300 Hz', () => {
    const mag = spectrumOf((t) => [2, 3, 4, 5].reduce((s, h) => s + Math.sin(2 * Math.PI * 300 * h * t), 0));
    expect(Math.abs(yin.pitch(mag) / 300 - 1)).toBeLessThan(0.01);
  });

  it('gives 0 for a silent spectrum', () => {
    expect(yin.pitch(new Float32Array(N / 2 + 1))).toBe(0);
  });
});
