/**
 * Frames as the reference's streaming FrameCutter cuts them (startFromZero false, the extractor's
 * setting): frame i starts at i·hop − ⌊(size + 1)/2⌋, outside the signal reads zero, frames continue while
 * their start is inside the signal, and the first frame whose centre reaches the end of the signal is the
 * last one. A silent frame (mean power under 10⁻¹⁰, Essentia's isSilent) is replaced by the cutter's
 * faint noise: `silentNoise(size)` returns the next `size` values of its NoiseAdder (one generator for
 * the whole stream, as the cutter holds one).
 */

/** Mean power Σx²/n (Essentia's instantPower). */
export function instantPower(frame: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < frame.length; i++) sum += frame[i] * frame[i];
  return frame.length ? sum / frame.length : 0;
}

export const SILENCE_CUTOFF = 1e-10;

/** The start sample of each frame the cutter emits for a signal of `length` samples. */
export function frameStarts(length: number, frameSize: number, hopSize: number): number[] {
  const starts: number[] = [];
  if (length === 0) return starts;
  const first = -Math.floor((frameSize + 1) / 2);
  for (let start = first; start < length; start += hopSize) {
    starts.push(start);
    const reachesEnd = start + frameSize >= length;
    const centreAtEnd = start + Math.floor(frameSize / 2) >= length;
    if (reachesEnd && centreAtEnd) break;
  }
  return starts;
}

/** Cuts every frame (zero-padded at both ends), noise in place of silent frames. */
export function* cutFrames(
  signal: Float32Array,
  frameSize: number,
  hopSize: number,
  silentNoise: (size: number) => Float32Array,
): Generator<Float32Array> {
  for (const start of frameStarts(signal.length, frameSize, hopSize)) {
    const frame = new Float32Array(frameSize);
    const from = Math.max(start, 0);
    const to = Math.min(start + frameSize, signal.length);
    frame.set(signal.subarray(from, to), from - start);
    if (instantPower(frame) < SILENCE_CUTOFF) {
      // The cutter copies the frame's first `acquired` values (as many as it read from the stream) after
      // the left padding again before adding the noise: a frame that starts before the signal shifts.
      const pad = Math.max(-start, 0);
      const acquired = start < 0 ? Math.min(frameSize - pad, signal.length) : to - from;
      const shifted = new Float32Array(frameSize);
      shifted.set(frame.subarray(0, acquired), pad);
      const noise = silentNoise(frameSize);
      for (let i = 0; i < frameSize; i++) shifted[i] += noise[i];
      yield shifted;
      continue;
    }
    yield frame;
  }
}
