/**
 * lowlevel.sound_start_frame as the reference extractor computes it: Essentia's StartStopSilence on the
 * low-level frames (2048 samples, hop 1024), a frame being silent when its mean power (Σx²/N) is under
 * −60 dB (10⁻⁶). Its start is not simply the first loud frame: while the start and stop counters are
 * equal, a silent frame moves the start onto itself and the frame after it one further, so a lone loud
 * frame followed by silence does not fix the start (loud frames only move the stop), and after an even
 * number of leading silent frames the start is the frame before the first loud one. The same walk here,
 * over the frame powers the low-level loop already has.
 */

/** The reference's StartStopSilence threshold: −60 dB as a power ratio. */
export const START_STOP_SILENCE_POWER = 1e-6;

export function soundStartFrame(framePower: ArrayLike<number>): number {
  let start = 0;
  let stop = 0;
  let afterSilence = false;
  for (let frame = 0; frame < framePower.length; frame++) {
    if (afterSilence) {
      start++;
      afterSilence = false;
    }
    const silent = framePower[frame] < START_STOP_SILENCE_POWER;
    if (silent && start === stop) {
      start = frame;
      afterSilence = true;
    }
    if (!silent) stop = frame;
    if (start > stop) stop = start;
  }
  return start;
}
