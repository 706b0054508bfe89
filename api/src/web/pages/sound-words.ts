/**
 * The main descriptors of a sound in words, for people rather than programs: "C major", "120 BPM",
 * "−14.2 LUFS (loud)". Pure functions of the values the API returns; absent values say nothing.
 */
import { midiToNoteName } from '@earshot/common';

export interface DescriptorLine {
  label: string;
  value: string;
}

/** Milliseconds under a second (most one-shots), seconds under a minute, m:ss above. */
export function durationInWords(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  const m = Math.floor(whole / 60);
  const s = whole % 60;
  return `${m}:${String(s).padStart(2, '0')} min`;
}

/** The nearest equal-tempered note of a frequency (A4 = 440 Hz), with its octave. */
export function noteOfFrequency(hz: number): string | undefined {
  if (!Number.isFinite(hz) || hz <= 0) return undefined;
  const midi = Math.round(69 + 12 * Math.log2(hz / 440));
  if (midi < 0 || midi > 127) return undefined;
  return midiToNoteName(midi);
}

/** Integrated loudness (LUFS) with a rough word, so the number means something to a listener. */
export function loudnessInWords(lufs: number): string {
  const word = lufs > -10 ? 'very loud' : lufs > -18 ? 'loud' : lufs > -30 ? 'moderate' : 'quiet';
  return `${lufs.toFixed(1).replace('-', '−')} LUFS (${word})`;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The lines of the sound page's "About the sound" list: key, tempo, loudness, duration, pitch.
 * A tempo or key the analysis is unsure of (confidence under 0.3) is marked as a guess.
 */
export function describeSound(sound: Record<string, unknown>): DescriptorLine[] {
  const lines: DescriptorLine[] = [];
  const unsure = (confidence: unknown) => {
    const c = num(confidence);
    return c !== undefined && c < 0.3 ? ' (uncertain)' : '';
  };
  const key = text(sound.tonality);
  if (key) lines.push({ label: 'Key', value: `${key}${unsure(sound.tonality_confidence)}` });
  const bpm = num(sound.bpm);
  if (bpm !== undefined && bpm > 0)
    lines.push({ label: 'Tempo', value: `${Math.round(bpm)} BPM${unsure(sound.bpm_confidence)}` });
  const loudness = num(sound.loudness);
  if (loudness !== undefined) lines.push({ label: 'Loudness', value: loudnessInWords(loudness) });
  const duration = num(sound.duration);
  if (duration !== undefined && duration > 0)
    lines.push({ label: 'Duration', value: durationInWords(duration) });
  const pitch = num(sound.pitch);
  // `pitch` is the mean of the reference pitch track over every frame (noise and silence included): a
  // sound whose frames mostly carry no clear pitch (median confidence under 0.5) gets no pitch line.
  const pitched = (num(sound.note_confidence) ?? 1) >= 0.5;
  if (pitch !== undefined && pitch > 0 && pitched) {
    const note = text(sound.note_name) ?? noteOfFrequency(pitch);
    lines.push({ label: 'Pitch', value: `${Math.round(pitch)} Hz${note ? ` (about ${note})` : ''}` });
  }
  return lines;
}
