/** MIDI note number nearest to a frequency (A4 = 440 Hz = 69). */
export function frequencyToMidi(hz: number): number {
  return Math.round(69 + 12 * Math.log2(hz / 440));
}
