/**
 * The twelve note names, spelled with sharps (as the analysis writes keys and chords, and as
 * Freesound's clients read them), from C. Pitch-class tables starting elsewhere rotate this one.
 */
export const NOTE_NAMES = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'] as const;
export type NoteName = (typeof NOTE_NAMES)[number];

/** Scientific pitch notation: 69 → "A4", 60 → "C4", 21 → "A0". */
export function midiToNoteName(midi: number): string {
  const pitchClass = ((midi % 12) + 12) % 12;
  return `${NOTE_NAMES[pitchClass]}${Math.floor(midi / 12) - 1}`;
}

/** Filters write `#` as `sharp` in values (A# is `Asharp`), as Freesound's filter syntax does. */
export function unsharp(text: string): string {
  return text.replace(/sharp/g, '#');
}
