import { realSamples } from '@earshot/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMono } from '../media/decode.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import { LOWLEVEL_FRAME, LOWLEVEL_HOP } from './lowlevel.ts';
import { cutFrame, MagnitudeSpectrum } from './spectrum.ts';
import { Float32MagnitudeSpectrum } from './spectrum-f32.ts';

/**
 * The float32 WebAssembly spectrum a clip query uses gives fft.js's float64 magnitudes to within
 * float32 rounding of the frame's peak, bin for bin (DC and Nyquist in their places), on real
 * recordings and on signals whose energy sits in one known bin.
 */

const N = LOWLEVEL_FRAME;
const BINS = N / 2 + 1;
let exact: MagnitudeSpectrum;
let fast: Float32MagnitudeSpectrum;

beforeAll(async () => {
  await loadFloat32Fft();
  exact = new MagnitudeSpectrum(N);
  fast = new Float32MagnitudeSpectrum(N);
});

function both(frame: Float32Array): [Float32Array, Float32Array] {
  const a = new Float32Array(BINS);
  const b = new Float32Array(BINS);
  exact.compute(frame, a);
  fast.compute(frame, b);
  return [a, b];
}

/** The largest bin difference over the largest magnitude. */
function worstOfPeak(a: Float32Array, b: Float32Array): number {
  let peak = 0;
  let worst = 0;
  for (let k = 0; k < a.length; k++) {
    peak = Math.max(peak, a[k]);
    worst = Math.max(worst, Math.abs(a[k] - b[k]));
  }
  return peak > 0 ? worst / peak : worst;
}

describe('Float32MagnitudeSpectrum', () => {
  it('puts a constant in DC, an alternating signal at Nyquist and a bin-centred sine in its bin', () => {
    const dc = new Float32Array(N).fill(0.5);
    const nyquist = Float32Array.from({ length: N }, (_, i) => (i % 2 === 0 ? 0.5 : -0.5));
    const sine = Float32Array.from({ length: N }, (_, i) => Math.sin((2 * Math.PI * 100 * i) / N));
    for (const [frame, bin] of [
      [dc, 0],
      [nyquist, BINS - 1],
      [sine, 100],
    ] as const) {
      const [a, b] = both(frame);
      expect(b.indexOf(Math.max(...b))).toBe(bin);
      expect(worstOfPeak(a, b)).toBeLessThan(1e-6);
    }
  });

  it('matches fft.js within float32 rounding of the peak on every frame of real recordings', async () => {
    let frames = 0;
    for (const sample of realSamples().slice(0, 8)) {
      const { samples } = await decodeMono(sample.file, { maxSeconds: 5 });
      const frame = new Float32Array(N);
      for (let centre = 0; centre < samples.length; centre += LOWLEVEL_HOP) {
        cutFrame(samples, centre, frame);
        const [a, b] = both(frame);
        expect(worstOfPeak(a, b), `${sample.name} at ${centre}`).toBeLessThan(1e-6);
        frames++;
      }
    }
    expect(frames).toBeGreaterThan(100);
  }, 60_000);
});
