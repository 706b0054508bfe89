import { beforeAll, describe, expect, it } from 'vitest';
import { referenceRecording } from '../testing/reference-recording.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import { extractKey, keyFromProfile } from './key.ts';

beforeAll(() => loadFloat32Fft());

// Essentia's bgate major and minor profiles from the tonic.
const MAJOR = [1, 0, 0.42, 0, 0.53, 0.37, 0, 0.77, 0, 0.38, 0.21, 0.3];
const MINOR = [1, 0, 0.36, 0.39, 0, 0.38, 0, 0.74, 0.27, 0, 0.42, 0.23];
/** A profile (bin 0 = A) with `degrees` starting at `tonic` semitones above A. */
const at = (degrees: number[], tonic: number) =>
  Array.from({ length: 12 }, (_, i) => degrees[(i - tonic + 12) % 12]);

describe('keyFromProfile (the reference Key on the KeyExtractor mean profile)', () => {
  it('names the tonic and scale whose bgate profile the pitch classes follow, strength their correlation', () => {
    expect(keyFromProfile(at(MAJOR, 3))).toEqual({
      key: 'C',
      scale: 'major',
      strength: expect.closeTo(1, 9),
    });
    expect(keyFromProfile(at(MINOR, 10).map((v) => 5 * v))).toEqual({
      key: 'G',
      scale: 'minor',
      strength: expect.closeTo(1, 9),
    });
  });
  it('zeroes the bins under a fifth of the maximum before correlating', () => {
    // D major with 0.15 in its four empty degrees: gated away, it is the bgate profile again.
    const blurred = at(
      MAJOR.map((v) => (v === 0 ? 0.15 : v)),
      5,
    );
    expect(keyFromProfile(blurred)).toEqual({ key: 'D', scale: 'major', strength: expect.closeTo(1, 9) });
    // At 0.25 they stay and lower the correlation.
    const kept = keyFromProfile(
      at(
        MAJOR.map((v) => (v === 0 ? 0.25 : v)),
        5,
      ),
    );
    expect(kept.key).toBe('D');
    expect(kept.strength).toBeLessThan(0.99);
  });
  it('gives A minor with strength 0 to a profile without content', () => {
    expect(keyFromProfile(new Array(12).fill(0))).toEqual({ key: 'A', scale: 'minor', strength: 0 });
  });
});

describe('extractKey on real recordings, against the reference extractor', () => {
  // Golden values: the tonal.key native Essentia's FreesoundExtractor wrote (flats there, sharps here).
  // A break loop, a hum, a pad and a kick: pitched, harmonic, noisy and nearly pitchless content.
  const sharps: Record<string, string> = { Bb: 'A#', Eb: 'D#', Ab: 'G#' };
  it.each(['loop_amen_full', 'ambi_glass_hum', 'tbd_pad_2', 'bd_808', 'hat_metal'])(
    '%s: the same key and scale, strength within 0.002',
    async (name) => {
      const { reference, samples, sampleRate } = await referenceRecording(name);
      const want = (reference.tonal as { key: { key: string; scale: string; strength: number } }).key;
      const got = extractKey(samples, sampleRate);
      expect(got.key).toBe(sharps[want.key] ?? want.key);
      expect(got.scale).toBe(want.scale);
      expect(Math.abs(got.strength - want.strength)).toBeLessThanOrEqual(0.002);
    },
    60_000,
  );
  it('gives digital silence and an empty signal no key strength', () => {
    expect(extractKey(new Float32Array(44100), 44100).strength).toBe(0);
    expect(extractKey(new Float32Array(0), 44100).strength).toBe(0);
  });
});
