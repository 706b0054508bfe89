import { describe, expect, it } from 'vitest';
import { SpectralPitchSalience } from './pitch-salience.ts';
import { blackmanHarris62, MagnitudeSpectrum } from './spectrum.ts';

const SR = 44100;
const N = 2048;

function spectrumOf(signal: (t: number) => number): Float32Array {
  const frame = new Float32Array(N);
  for (let i = 0; i < N; i++) frame[i] = signal(i / SR);
  const mag = new Float32Array(N / 2 + 1);
  new MagnitudeSpectrum(N, blackmanHarris62(N)).compute(frame, mag);
  return mag;
}

describe('SpectralPitchSalience (Essentia PitchSalience)', () => {
  const salience = new SpectralPitchSalience(N / 2 + 1, SR / N);
  it('is high for a harmonic tone (its spectrum repeats every f0)', () => {
    const tone = spectrumOf((t) => {
      let s = 0;
      for (let h = 1; h <= 20; h++) s += Math.sin(2 * Math.PI * 220 * h * t) / h;
      return s * 0.3;
    });
    expect(salience.compute(tone)).toBeGreaterThan(0.5);
  });
  // Noise's magnitudes are Rayleigh-distributed with a non-zero mean, so every lag keeps E[|X|]²/E[|X|²] = π/4
  // of lag 0: Essentia's definition gives noise ≈ 0.8 (hat_cab: 0.797 in the reference), a lone sine ≈ 0.
  it('is π/4 for white noise and near 0 for a lone sine (no repetition between 100 Hz and 5 kHz)', () => {
    let seed = 1;
    const noise = spectrumOf(() => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647 - 0.5;
    });
    expect(salience.compute(noise)).toBeGreaterThan(0.7);
    expect(salience.compute(noise)).toBeLessThan(0.88);
    expect(salience.compute(spectrumOf((t) => 0.5 * Math.sin(2 * Math.PI * 1000 * t)))).toBeLessThan(0.1);
  });
  it('is 0 for silence and does not depend on level', () => {
    expect(salience.compute(new Float32Array(N / 2 + 1))).toBe(0);
    const a = spectrumOf((t) => Math.sin(2 * Math.PI * 300 * t) + Math.sin(2 * Math.PI * 600 * t));
    const b = a.map((x) => x * 0.01);
    expect(salience.compute(b)).toBeCloseTo(salience.compute(a), 6);
  });
  it("searches the reference's lags: from ⌊100·bins/Nyquist⌋ = 4 up to, not including, ⌊5000·bins/Nyquist⌋ = 232", () => {
    const comb = (period: number) => new Float32Array(N / 2 + 1).map((_, k) => (k % period === 0 ? 1 : 0));
    expect(salience.compute(comb(4))).toBeGreaterThan(0.95);
    expect(salience.compute(comb(231))).toBeGreaterThan(0.5);
    expect(salience.compute(comb(232))).toBeLessThan(1e-9);
  });
});
