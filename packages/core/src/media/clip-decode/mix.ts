/** ffmpeg's pan gain for a mean of `channels` channels (1/channels to 6 significant digits). */
export function mixGain(channels: number): number {
  return Number((1 / channels).toPrecision(6));
}

/**
 * Adds the channels' mean into `out` from `offset`, channel after channel, so that mixing a clip
 * in parts gives the same float32 values as mixing it whole.
 */
export function mixInto(out: Float32Array, offset: number, channels: readonly Float32Array[]): void {
  const gain = mixGain(channels.length);
  for (const channel of channels) {
    for (let i = 0; i < channel.length; i++) out[offset + i] += channel[i] * gain;
  }
}

/** Mean of the channels with ffmpeg's pan gains. */
export function mixDown(channels: Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0];
  const out = new Float32Array(channels[0].length);
  mixInto(out, 0, channels);
  return out;
}
