import { describe, expect, it } from 'vitest';
import { beatsLoudness } from './beats-loudness.ts';

const SR = 44100;

function tone(freq: number, seconds: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  for (let i = 0; i < out.length; i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / SR);
  return out;
}

describe('beats loudness as the reference BeatsLoudness', () => {
  it("gives a 50 ms beat's spectral energy and the share of it in each of six bands", () => {
    const { loudness, bandRatios } = beatsLoudness(tone(1000, 1), SR, [0.3, 0.6]);
    expect(loudness).toHaveLength(2);
    expect(bandRatios[0]).toHaveLength(6);
    // 1 kHz lies in the 800–1600 Hz band.
    expect(bandRatios[0][3]).toBeGreaterThan(0.99);
    expect(bandRatios[0].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
    // Energy scales with the square of the amplitude.
    const quiet = beatsLoudness(tone(1000, 1, 0.25), SR, [0.3]).loudness[0];
    expect(loudness[0] / quiet).toBeCloseTo(4, 2);
  });

  it('takes a single beat at 0 s when there are none, and no value for a slice past the end', () => {
    expect(beatsLoudness(tone(100, 0.2), SR, []).bandRatios[0][0]).toBeGreaterThan(0.99);
    expect(beatsLoudness(tone(100, 0.12), SR, [])).toEqual({ loudness: [], bandRatios: [] });
    expect(beatsLoudness(tone(100, 1), SR, [0.95]).loudness).toEqual([]);
  });

  it('starts the beat at the loudest sample of the window around the tick', () => {
    const signal = new Float32Array(SR);
    // Silence, then a burst 40 ms after the tick: the beat starts at the burst, not at the tick.
    signal.set(tone(3000, 0.06), Math.round(0.54 * SR));
    const { loudness, bandRatios } = beatsLoudness(signal, SR, [0.5]);
    const steady = beatsLoudness(tone(3000, 1), SR, [0.5]).loudness[0];
    expect(loudness[0] / steady).toBeGreaterThan(0.95);
    expect(loudness[0] / steady).toBeLessThan(1.05);
    expect(bandRatios[0][4]).toBeGreaterThan(0.9);
  });
});
