/**
 * Approximations of the AudioCommons timbral models on a 0–100 scale. The originals are regressions fitted
 * to listener ratings over hand-made features (see docs/descriptors.md); these keep each model's main
 * feature and map it to 0–100 with fixed, documented curves instead of the fitted coefficients.
 */

export interface TimbralInput {
  /** Time-averaged power spectrum (frame-energy weighted) and its bin width. */
  averagePower: Float64Array;
  binHz: number;
  /** Mean Bark band energies (27 bands, Essentia's edges). */
  barkMean: number[];
  /** Median pitch of confident frames (Hz), 0 when unpitched. */
  pitch: number;
  logAttackTime: number;
  effectiveDuration: number;
  /** Mean sensory dissonance of non-silent frames (0…0.5). */
  dissonance: number;
}

export interface TimbralScores {
  brightness: number;
  warmth: number;
  boominess: number;
  depth: number;
  hardness: number;
  roughness: number;
  sharpness: number;
}

const clip = (x: number): number => (Number.isFinite(x) ? Math.min(100, Math.max(0, x)) : 0);

function bandEnergy(power: Float64Array, binHz: number, loHz: number, hiHz: number): number {
  let e = 0;
  const from = Math.max(0, Math.ceil(loHz / binHz));
  const to = Math.min(power.length - 1, Math.floor(hiHz / binHz));
  for (let k = from; k <= to; k++) e += power[k];
  return e;
}

function centroidAbove(power: Float64Array, binHz: number, loHz: number): number {
  let s = 0;
  let w = 0;
  for (let k = Math.ceil(loHz / binHz); k < power.length; k++) {
    s += power[k];
    w += k * binHz * power[k];
  }
  return s > 0 ? w / s : 0;
}

/** Zwicker/Fastl sharpness in acum from Bark band energies (specific loudness ≈ energy^0.23). */
function sharpnessAcum(bark: number[]): number {
  let num = 0;
  let den = 0;
  for (let b = 0; b < bark.length; b++) {
    const z = b + 1;
    const n = Math.max(0, bark[b]) ** 0.23;
    const g = z <= 16 ? 1 : 0.066 * Math.exp(0.171 * z);
    num += n * g * z;
    den += n;
  }
  return den > 0 ? (0.11 * num) / den : 0;
}

export function timbralScores(input: TimbralInput): TimbralScores {
  const { averagePower: p, binHz } = input;
  const total = bandEnergy(p, binHz, 20, binHz * p.length);
  if (!(total > 0))
    return { brightness: 0, warmth: 0, boominess: 0, depth: 0, hardness: 0, roughness: 0, sharpness: 0 };

  // Brightness: high-frequency share above 2 kHz (log scale) and the centroid above 100 Hz (log scale).
  const highShare = bandEnergy(p, binHz, 2000, binHz * p.length) / total;
  const centroid = centroidAbove(p, binHz, 100);
  const shareTerm = Math.max(0, 1 + Math.log10(highShare + 1e-4) / 4);
  const centroidTerm = Math.max(0, Math.log10(Math.max(centroid, 200) / 200) / Math.log10(50));
  const brightness = clip(100 * (0.5 * shareTerm + 0.5 * centroidTerm));

  // Warmth: share of energy in the warmth region (f0…3.5·f0, or 100–500 Hz without pitch), less the brightness.
  const warmLo = input.pitch > 0 ? input.pitch : 100;
  const warmHi = input.pitch > 0 ? 3.5 * input.pitch : 500;
  const warmShare = bandEnergy(p, binHz, warmLo, warmHi) / total;
  const warmth = clip(100 * Math.sqrt(warmShare) * (1 - brightness / 200));

  // Boominess: Bark bands below ~280 Hz weighted by Hatano & Hashimoto's booming weights 2.13·e^(−0.151·z).
  let boom = 0;
  let barkTotal = 0;
  for (let b = 0; b < input.barkMean.length; b++) {
    barkTotal += input.barkMean[b];
    if (b < 6) boom += input.barkMean[b] * Math.min(1, 2.13 * Math.exp(-0.151 * (b + 1)));
  }
  const boominess = clip(barkTotal > 0 ? 100 * Math.sqrt(boom / barkTotal) : 0);

  // Depth: low-frequency share below 500 Hz with a bonus for long decays.
  const lowShare = bandEnergy(p, binHz, 20, 500) / total;
  const depth = clip(100 * (0.8 * Math.sqrt(lowShare) + 0.2 * Math.min(1, input.effectiveDuration / 2)));

  // Hardness: steep attacks (log attack time −3 → 1, −1 → 0) made harder by bright content.
  const attackTerm = Math.min(1, Math.max(0, (-input.logAttackTime - 1) / 2));
  const hardness = clip(100 * (0.7 * attackTerm + 0.3 * (brightness / 100)));

  // Roughness: sensory dissonance (Plomp–Levelt, Sethares) of the spectral peaks, 0.5 → 100.
  const roughness = clip(200 * input.dissonance);

  // Sharpness: AudioCommons' regression form 102.5·log10(S) + 34.43 on the Zwicker sharpness S (acum).
  const s = sharpnessAcum(input.barkMean);
  const sharpness = clip(s > 0 ? 102.5 * Math.log10(s) + 34.43 : 0);

  return { brightness, warmth, boominess, depth, hardness, roughness, sharpness };
}
