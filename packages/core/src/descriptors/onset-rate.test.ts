import { realSamples } from '@earshot/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMono } from '../media/decode.ts';
import { complexDifference, emptySpectrum, hannWindow } from './beat-odf.ts';
import { binIm, binRe, Float32RealFft, loadFloat32Fft } from './fft-f32.ts';
import { ONSET_FRAME, ONSET_HOP, onsetDetections, onsetRate, pickOnsetFrames } from './onset-rate.ts';
import { cutFrame, frameCount } from './spectrum.ts';

const SR = 44100;

beforeAll(() => loadFloat32Fft());

/** Short decaying 2 kHz bursts starting at the given times, silence between them. */
function clicks(seconds: number, starts: number[]): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  for (const start of starts) {
    const from = Math.round(start * SR);
    for (let i = 0; i < 0.1 * SR && from + i < out.length; i++)
      out[from + i] += Math.exp(-i / (0.02 * SR)) * Math.sin((2 * Math.PI * 2000 * i) / SR);
  }
  return out;
}

describe('onsetDetections', () => {
  it('gives Σ k·|X_k| and the complex-domain difference of Hann frames centred on each hop', () => {
    const signal = clicks(0.5, [0.1, 0.3]);
    for (let i = 0; i < signal.length; i++) signal[i] += 0.3 * Math.sin((2 * Math.PI * 440 * i) / SR);
    const { hfc, complex } = onsetDetections(signal);
    // The same float32 transform as the function's (the reference's is float32 too).
    const fft = new Float32RealFft(ONSET_FRAME);
    const window = hannWindow(ONSET_FRAME);
    const frame = new Float32Array(ONSET_FRAME);
    const bins = ONSET_FRAME / 2 + 1;
    let [cur, prev1, prev2] = [emptySpectrum(bins), emptySpectrum(bins), emptySpectrum(bins)];
    expect(hfc.length).toBe(frameCount(signal.length, ONSET_HOP, ONSET_FRAME));
    for (let f = 0; f < hfc.length; f++) {
      cutFrame(signal, f * ONSET_HOP, frame);
      const input = fft.input();
      for (let i = 0; i < ONSET_FRAME; i++) input[i] = frame[i] * window[i];
      const out = fft.forward();
      let high = 0;
      for (let k = 0; k < bins; k++) {
        const [re, im] = [binRe(out, k, ONSET_FRAME), binIm(out, k, ONSET_FRAME)];
        const m = Math.hypot(re, im);
        cur.re[k] = re;
        cur.im[k] = im;
        cur.mag[k] = m;
        cur.cos[k] = m > 0 ? re / m : 1;
        cur.sin[k] = m > 0 ? im / m : 0;
        high += k * m;
      }
      expect(hfc[f]).toBeCloseTo(high, 2);
      const expected = complexDifference(cur, prev1, prev2);
      expect(Math.abs(complex[f] - expected)).toBeLessThanOrEqual(1e-6 * Math.max(1, expected));
      [prev2, prev1, cur] = [prev1, cur, prev2];
    }
  });
});

describe('pickOnsetFrames (the reference Onsets peak picking)', () => {
  it('keeps the first frame of a run above the adaptive threshold and drops a lone frame', () => {
    const step = new Float32Array(40);
    step.fill(1, 10);
    // The smoothed sum rises over five frames from frame 10 and stays above the running median plus a
    // tenth of the mean until the window is full of the new level: one run, whose first frame is 10.
    expect(pickOnsetFrames([step, step])).toEqual([10]);
    const spike = new Float32Array(40);
    spike[20] = 1;
    // One frame of 2 smooths into five frames of 0.4, above threshold while the window's median is 0 (two
    // frames): a run of two, kept.
    expect(pickOnsetFrames([spike, spike])).toEqual([20]);
  });

  it('finds nothing in silence or under the silence threshold', () => {
    expect(pickOnsetFrames([new Float32Array(50), new Float32Array(50)])).toEqual([]);
    // After scaling to a maximum of 1 the sum is 2 in one frame: its average over five frames (0.4) clears
    // the 0.04 silence floor; a second, weaker bump at 1 % of the first is lost below it.
    const f = new Float32Array(60);
    f[10] = 1;
    f[40] = 0.01;
    expect(pickOnsetFrames([f, f])).toEqual([10]);
  });
});

describe('onsetRate', () => {
  it('finds each burst within two hops of its start and counts per second of framed signal', () => {
    const starts = [0.25, 0.8, 1.4, 2.1];
    const signal = clicks(3, starts);
    const { times, rate } = onsetRate(signal, SR);
    expect(times.length).toBe(starts.length);
    for (const [i, t] of times.entries()) expect(Math.abs(t - starts[i])).toBeLessThan((2 * ONSET_HOP) / SR);
    const frames = onsetDetections(signal).hfc.length;
    expect(frames).toBe(Math.ceil((signal.length + 512) / ONSET_HOP));
    expect(rate).toBeCloseTo(starts.length / ((frames * ONSET_HOP) / SR), 10);
  });

  it('gives no onset for silence and for an empty signal', () => {
    expect(onsetRate(new Float32Array(SR), SR)).toEqual({ times: [], rate: 0 });
    expect(onsetRate(new Float32Array(0), SR)).toEqual({ times: [], rate: 0 });
  });

  it('gives the reference extractor’s onset times and rates on real recordings', async () => {
    const names = [
      'arovane_beat_c',
      'loop_amen_full',
      'ambi_glass_rub',
      'vinyl_rewind',
      'tbd_pad_1',
      'bd_808',
    ];
    const samples = realSamples().filter((s) => names.includes(s.name));
    expect(samples.length).toBe(names.length);
    for (const sample of samples) {
      const { samples: signal, sampleRate } = await decodeMono(sample.file);
      const reference = (
        sample.reference as { rhythm: { onset_times: number[]; onset_rate: number; onset_count: number } }
      ).rhythm;
      const ours = onsetRate(signal, sampleRate);
      expect(ours.times.length, sample.name).toBe(reference.onset_count);
      for (const [i, t] of ours.times.entries()) expect(t).toBeCloseTo(reference.onset_times[i], 5);
      expect(ours.rate).toBeCloseTo(reference.onset_rate, 4);
    }
  }, 60_000);
});
