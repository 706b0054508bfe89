import { describe, expect, it } from 'vitest';
import { referenceRecording } from '../testing/reference-recording.ts';
import { LOWLEVEL_FRAME, LOWLEVEL_HOP, lowLevelFrames } from './lowlevel.ts';
import { soundStartFrame } from './start-stop-silence.ts';

const loud = 1e-3;
const quiet = 1e-8;

describe('soundStartFrame (the reference StartStopSilence start)', () => {
  it('is the first loud frame after an odd number of silent ones, 0 when the sound starts at once', () => {
    expect(soundStartFrame([quiet, quiet, quiet, loud, loud])).toBe(3);
    expect(soundStartFrame([quiet, quiet, loud, loud])).toBe(1);
    expect(soundStartFrame([loud, loud, quiet])).toBe(0);
    expect(soundStartFrame([])).toBe(0);
  });

  it('walks as the reference does: a lone loud frame then silence does not fix the start', () => {
    // Golden values of Essentia's counters on these sequences.
    expect(soundStartFrame([quiet, loud, quiet, quiet, loud])).toBe(3);
    expect(soundStartFrame([quiet, quiet, loud, loud, quiet])).toBe(1);
    expect(soundStartFrame([quiet, quiet, quiet])).toBe(2);
  });

  it('reads 1 s of silence then a tone as the frame whose window first holds −60 dB of mean power', () => {
    const sr = 44100;
    const signal = new Float32Array(3 * sr);
    for (let i = sr; i < signal.length; i++) signal[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / sr);
    const power = lowLevelFrames(signal, sr, new Set(['frame_energy'])).series.scalar('frame_energy');
    const start = soundStartFrame(power);
    // Frame i covers samples (i − 1)·1024 … (i + 1)·1024: the first one reaching past 1 s (by enough
    // samples of a 0.125-power tone to average 10⁻⁶ over 2048), or the one before it.
    const first = power.findIndex((p) => p >= 1e-6);
    expect((first + 1) * LOWLEVEL_HOP).toBeGreaterThan(sr);
    expect((first + 1) * LOWLEVEL_HOP - sr).toBeLessThanOrEqual(LOWLEVEL_FRAME / 2);
    expect(first - start).toBe(first % 2 === 0 ? 1 : 0);
  });

  it('gives the native extractor’s 0 on a recording that starts at once', async () => {
    const { reference, samples, sampleRate } = await referenceRecording('loop_amen_full');
    const power = lowLevelFrames(samples, sampleRate, new Set(['frame_energy'])).series.scalar(
      'frame_energy',
    );
    expect(soundStartFrame(power)).toBe(reference.lowlevel.sound_start_frame);
  });
});
