import { describe, expect, it } from 'vitest';
import { describeSound, durationInWords, loudnessInWords, noteOfFrequency } from './sound-words.ts';

describe('the descriptors of a sound in words', () => {
  it('names the note of a frequency, A4 being 440 Hz', () => {
    expect(noteOfFrequency(440)).toBe('A4');
    expect(noteOfFrequency(261.63)).toBe('C4');
    expect(noteOfFrequency(55)).toBe('A1');
    expect(noteOfFrequency(0)).toBeUndefined();
  });

  it('writes durations in ms under a second, seconds under a minute, m:ss above', () => {
    expect(durationInWords(0.042)).toBe('42 ms');
    expect(durationInWords(1.42)).toBe('1.4 s');
    expect(durationInWords(12.4)).toBe('12 s');
    expect(durationInWords(75)).toBe('1:15 min');
  });

  it('gives loudness a word', () => {
    expect(loudnessInWords(-8)).toBe('−8.0 LUFS (very loud)');
    expect(loudnessInWords(-35.25)).toBe('−35.3 LUFS (quiet)');
  });

  it('lists key, tempo, loudness, duration and pitch, marking unsure guesses', () => {
    const lines = describeSound({
      tonality: 'A minor',
      tonality_confidence: 0.8,
      bpm: 119.6,
      bpm_confidence: 0.1,
      loudness: -20,
      duration: 3.25,
      pitch: 220,
    });
    expect(lines).toEqual([
      { label: 'Key', value: 'A minor' },
      { label: 'Tempo', value: '120 BPM (uncertain)' },
      { label: 'Loudness', value: '−20.0 LUFS (moderate)' },
      { label: 'Duration', value: '3.3 s' },
      { label: 'Pitch', value: '220 Hz (about A3)' },
    ]);
    expect(describeSound({ duration: 1 })).toEqual([{ label: 'Duration', value: '1.0 s' }]);
    // A drum loop's track mean is no pitch a listener hears: its median confidence is low.
    expect(describeSound({ pitch: 896, note_name: 'F2', note_confidence: 0.35 })).toEqual([]);
    expect(describeSound({ pitch: 443.9, note_name: 'A4', note_confidence: 0.93 })).toEqual([
      { label: 'Pitch', value: '444 Hz (about A4)' },
    ]);
  });
});
