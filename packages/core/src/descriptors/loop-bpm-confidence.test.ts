import { realSamples } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { decodeMono } from '../media/decode.ts';
import { loopBpmConfidence } from './loop-bpm-confidence.ts';

const SR = 44_100;

/** `seconds` of silence, then a 440 Hz tone for `tone` seconds, then silence for `tail` seconds. */
function toneBetween(seconds: number, tone: number, tail: number): Float32Array {
  const out = new Float32Array(Math.round((seconds + tone + tail) * SR));
  const from = Math.round(seconds * SR);
  for (let i = 0; i < Math.round(tone * SR); i++)
    out[from + i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / SR);
  return out;
}

describe('loopBpmConfidence (the reference LoopBpmConfidence)', () => {
  it('is 1 for a length of whole beats, falling to 0 half a beat away', () => {
    // 4 beats at 120 BPM: 88200 samples.
    expect(loopBpmConfidence(toneBetween(0, 2, 0), 120, SR)).toBe(1);
    // A quarter beat (5512.5 samples) too long: about 1 − 5512/11025, a little more as the sound starts
    // where its envelope (10 ms attack) reaches 5% of its peak, some 20 samples in.
    const quarterOff = loopBpmConfidence(toneBetween(0, 2.125, 0), 120, SR);
    expect(quarterOff).toBeGreaterThan(1 - 5512 / 11025);
    expect(quarterOff).toBeLessThan(1 - 5400 / 11025);
    // Half a beat off: nothing fits (but for those 20 samples).
    expect(loopBpmConfidence(toneBetween(0, 2.25, 0), 120, SR)).toBeLessThan(0.005);
  });

  it('also measures from the sound’s start and to its end (envelope ≥ 5% of its peak)', () => {
    // Half a beat of silence, then 4 beats of tone: the whole fits nothing, from the start it fits.
    expect(loopBpmConfidence(toneBetween(0.25, 2, 0), 120, SR)).toBeGreaterThan(0.99);
    // 4 beats of tone, then half a beat of silence: the end is where the envelope's 10 ms release
    // falls under 5% of its peak, about 0.03 s after the tone (0.06 beat).
    const tail = loopBpmConfidence(toneBetween(0, 2, 0.25), 120, SR);
    expect(tail).toBeGreaterThan(0.85);
    expect(tail).toBeLessThan(0.95);
  });

  it('is 0 for a tempo of 0 and for no signal', () => {
    expect(loopBpmConfidence(toneBetween(0, 2, 0), 0, SR)).toBe(0);
    expect(loopBpmConfidence(new Float32Array(0), 120, SR)).toBe(0);
  });

  it('gives the reference extractor’s rhythm.bpm_loop_confidence for its rhythm.bpm_loop rounded', async () => {
    const samples = realSamples();
    expect(samples).toHaveLength(40);
    for (const sample of samples) {
      const { samples: signal } = await decodeMono(sample.file);
      const rhythm = (sample.reference as { rhythm: { bpm_loop: number; bpm_loop_confidence: number } })
        .rhythm;
      const ours = loopBpmConfidence(signal, Math.round(rhythm.bpm_loop), SR);
      // Within 1e-4: an envelope edge a sample away moves a value by 1/half-beat (≈ 7e-5 at 90 BPM).
      expect(Math.abs(ours - rhythm.bpm_loop_confidence), sample.name).toBeLessThan(1e-4);
    }
  }, 120_000);
});
