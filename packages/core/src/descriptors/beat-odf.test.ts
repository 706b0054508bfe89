import { beforeAll, describe, expect, it } from 'vitest';
import {
  bandDb,
  beatOdfs,
  complexDifference,
  emptySpectrum,
  energyFlux,
  infoFrameCount,
  informationGain,
  melFlux,
  odfFrameCount,
  spectrumRms,
} from './beat-odf.ts';
import { loadFloat32Fft } from './fft-f32.ts';

const SR = 44100;

beforeAll(() => loadFloat32Fft());

/** A one-bin spectrum with magnitude m and phase p. */
function bin(m: number, p: number) {
  const s = emptySpectrum(1);
  s.re[0] = m * Math.cos(p);
  s.im[0] = m * Math.sin(p);
  s.mag[0] = m;
  s.cos[0] = Math.cos(p);
  s.sin[0] = Math.sin(p);
  return s;
}

describe('frame steps', () => {
  it('frames as the reference cuts them from the start: full frames, then the one reaching the end', () => {
    expect(odfFrameCount(0)).toBe(0);
    expect(odfFrameCount(100)).toBe(1);
    expect(odfFrameCount(2048)).toBe(1);
    expect(odfFrameCount(2049)).toBe(2);
    expect(odfFrameCount(44100)).toBe(43);
  });

  it('the complex difference is 0 when magnitude and phase step continue, |Δ| otherwise', () => {
    expect(complexDifference(bin(1, 0.9), bin(1, 0.6), bin(1, 0.3))).toBeCloseTo(0, 12);
    // Same phase step, magnitude 1 → 3: the prediction misses by 2.
    expect(complexDifference(bin(3, 0.9), bin(1, 0.6), bin(1, 0.3))).toBeCloseTo(2, 12);
    // Same magnitude, phase off by π from the prediction: the distance is 2.
    expect(complexDifference(bin(1, 0.9 + Math.PI), bin(1, 0.6), bin(1, 0.3))).toBeCloseTo(2, 12);
  });

  it('the information gain cuts a frame every 512 samples until one reaches the end', () => {
    expect(infoFrameCount(0)).toBe(0);
    expect(infoFrameCount(2048)).toBe(1);
    expect(infoFrameCount(2049)).toBe(2);
    expect(infoFrameCount(44100)).toBe(84);
  });

  it('the information gain is Σ log2(after / before) over bins that rise (weights 1 … 0.28)', () => {
    // 11 frames of 2 bins: bin 0 steps from 1 to 4 after the middle frame, bin 1 falls from 2 to 1.
    const frames = Array.from({ length: 11 }, (_, i) => Float64Array.of(i > 5 ? 4 : 1, i > 5 ? 1 : 2));
    expect(informationGain(frames)).toBeCloseTo(2, 12);
    // Silence before the middle reads as 1: a rise from nothing to 8 counts log2(8 · Σw / 1).
    const onset = Array.from({ length: 11 }, (_, i) => Float64Array.of(i > 5 ? 8 : 0));
    expect(informationGain(onset)).toBeCloseTo(Math.log2(8 * (1 + 0.82 + 0.64 + 0.46 + 0.28)), 12);
  });

  it('energy and mel flux count rises only', () => {
    expect(spectrumRms(Float64Array.of(3, 4))).toBeCloseTo(2.5, 12);
    expect(energyFlux(2, 1)).toBe(1);
    expect(energyFlux(1, 2)).toBe(0);
    expect(melFlux(Float32Array.of(10, 0, 5), Float32Array.of(4, 3, 5))).toBe(6);
    expect(bandDb(1)).toBe(0);
    expect(bandDb(0)).toBe(-200);
  });
});

describe('beatOdfs', () => {
  it('all three functions rise at the frames where a click starts', () => {
    const signal = new Float32Array(3 * SR);
    for (let i = 0; i < signal.length; i++) signal[i] = 0.01 * Math.sin((2 * Math.PI * 440 * i) / SR);
    const clicks = [0.5, 1.3, 2.1];
    for (const c of clicks) {
      const at = Math.round(c * SR);
      for (let i = 0; i < 300; i++) signal[at + i] += 0.5 * Math.exp(-i / 60) * (i % 2 ? 1 : -1);
    }
    const odfs = beatOdfs(signal, SR, true);
    expect(odfs.rate).toBeCloseTo(SR / 1024, 9);
    expect(odfs.infoGain.length).toBe(infoFrameCount(signal.length));
    // Without it asked for, the information gain is left out and the other three are unchanged.
    const three = beatOdfs(signal, SR);
    expect(three.infoGain.length).toBe(0);
    expect([...three.complex]).toEqual([...odfs.complex]);
    // The information gain's value i is that of frame i − 5 (it needs the five frames after it); on the
    // 1024 grid, frame k is the larger of its two 512-hop frames.
    const info = Float32Array.from(odfs.complex, (_, k) =>
      Math.max(odfs.infoGain[2 * k + 5] ?? 0, odfs.infoGain[2 * k + 6] ?? 0),
    );
    for (const odf of [odfs.complex, odfs.energy, odfs.mel, info]) {
      // The first frames compare against the empty spectrum before the signal, the last is zero-padded:
      // left out. How much of a click a frame sees depends on where it falls under the window.
      const max = Math.max(...odf.subarray(2, odf.length - 1));
      for (const c of clicks) {
        // The frames starting up to 2048 samples before a click are the first to see it.
        const frame = Math.floor((c * SR) / 1024);
        const near = Math.max(...odf.subarray(frame - 2, frame + 1));
        expect(near).toBeGreaterThan(0.25 * max);
      }
    }
  });
});
