/**
 * Onset times from the per-frame onset strength (rectified log-spectral flux, one value per 1024-sample
 * hop): peaks above an adaptive threshold (local median + a fraction of the global maximum), at least
 * 50 ms apart, on frames that are not silent. Each onset is then placed on the sample grid: the first
 * point where a 1 ms envelope reaches a third of its maximum in the two hops before the peak frame.
 */
export function detectOnsets(
  strength: Float32Array,
  frameEnergy: Float32Array,
  signal: Float32Array,
  sampleRate: number,
  hop: number,
): number[] {
  const n = strength.length;
  let max = 0;
  for (let i = 0; i < n; i++) if (strength[i] > max) max = strength[i];
  if (max <= 0) return [];
  const radius = 8;
  const window: number[] = [];
  const peaks: number[] = [];
  const minGap = Math.max(1, Math.round((0.05 * sampleRate) / hop));
  for (let i = 0; i < n; i++) {
    const v = strength[i];
    if ((i > 0 && v < strength[i - 1]) || (i + 1 < n && v < strength[i + 1])) continue;
    if (frameEnergy[i] < 1e-7 && (i + 1 >= n || frameEnergy[i + 1] < 1e-7)) continue;
    // An offset (a fade-out's spectral splatter) also raises the flux; an onset must raise the energy too.
    if (
      i > 0 &&
      frameEnergy[i] <= frameEnergy[i - 1] &&
      (i + 1 >= n || frameEnergy[i + 1] <= frameEnergy[i - 1])
    )
      continue;
    window.length = 0;
    for (let j = Math.max(0, i - radius); j <= Math.min(n - 1, i + radius); j++) window.push(strength[j]);
    window.sort((a, b) => a - b);
    const median = window[window.length >> 1];
    if (v < median + 0.08 * max) continue;
    const last = peaks[peaks.length - 1];
    if (last !== undefined && i - last < minGap) {
      if (v > strength[last]) peaks[peaks.length - 1] = i;
      continue;
    }
    peaks.push(i);
  }
  return peaks.map((frame) => refineOnset(signal, sampleRate, frame, hop));
}

function refineOnset(signal: Float32Array, sampleRate: number, frame: number, hop: number): number {
  // Frame i covers [i·hop − 1024, i·hop + 1024); the rise it reacts to lies in that span.
  const from = Math.max(0, frame * hop - 2 * hop);
  const to = Math.min(signal.length, frame * hop + hop);
  if (to <= from) return (frame * hop) / sampleRate;
  const block = Math.max(1, Math.round(sampleRate / 1000));
  const blocks = Math.ceil((to - from) / block);
  const env = new Float32Array(blocks);
  for (let i = from; i < to; i++) {
    const b = ((i - from) / block) | 0;
    const a = Math.abs(signal[i]);
    if (a > env[b]) env[b] = a;
  }
  let peak = 0;
  for (const v of env) if (v > peak) peak = v;
  let b = 0;
  while (b < blocks - 1 && env[b] < peak / 3) b++;
  // Step back to the first sample of that block that crosses the level.
  const blockStart = from + b * block;
  let i = blockStart;
  while (i < Math.min(to, blockStart + block) && Math.abs(signal[i]) < peak / 3) i++;
  return i / sampleRate;
}
