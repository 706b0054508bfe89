import { describe, expect, it } from 'vitest';
import { dynamicComplexity } from './dynamic-complexity.ts';

const SR = 44100;

function tone(seconds: number, amp: (t: number) => number, freq = 1000): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  for (let i = 0; i < out.length; i++) out[i] = amp(i / SR) * Math.sin((2 * Math.PI * freq * i) / SR);
  return out;
}

describe('dynamic complexity as the reference DynamicComplexity', () => {
  it('is near 0 for a steady tone and 0 for silence or less than one 0.2 s frame', () => {
    // The leaky level settles within the first frame: only that frame deviates.
    expect(
      dynamicComplexity(
        tone(4, () => 0.5),
        SR,
      ),
    ).toBeLessThan(0.5);
    expect(dynamicComplexity(new Float32Array(SR), SR)).toBe(0);
    expect(
      dynamicComplexity(
        tone(0.15, () => 0.5),
        SR,
      ),
    ).toBe(0);
  });

  it('measures the level swings in dB: a tone alternating 20 dB every second deviates by about 10 dB', () => {
    const swinging = dynamicComplexity(
      tone(8, (t) => (Math.floor(t) % 2 === 0 ? 0.5 : 0.05)),
      SR,
    );
    // Loud frames weigh 0.9^(−dB): the loudness sits near the loud level, so the deviation is about
    // half the 20 dB swing.
    expect(swinging).toBeGreaterThan(8);
    expect(swinging).toBeLessThan(12);
    const gentle = dynamicComplexity(
      tone(8, (t) => (Math.floor(t) % 2 === 0 ? 0.5 : 0.25)),
      SR,
    );
    expect(gentle).toBeLessThan(swinging / 2);
  });

  it('drops the silence before the sound, and after it once the level has decayed to the −90 dB floor', () => {
    const steady = dynamicComplexity(
      tone(4, () => 0.5),
      SR,
    );
    const leading = new Float32Array(6 * SR);
    leading.set(
      tone(4, () => 0.5),
      2 * SR,
    );
    expect(dynamicComplexity(leading, SR)).toBeCloseTo(steady, 6);
    // After the end the level leaks away (−25 dB a frame): those few frames count, the floor does not.
    const trailing = new Float32Array(10 * SR);
    trailing.set(tone(4, () => 0.5));
    const withTail = dynamicComplexity(trailing, SR);
    const longerTail = new Float32Array(20 * SR);
    longerTail.set(tone(4, () => 0.5));
    expect(withTail).toBeGreaterThan(steady);
    expect(dynamicComplexity(longerTail, SR)).toBeCloseTo(withTail, 6);
  });
});
