/**
 * The low-level onset strength of one frame: the half-wave rectified flux of log-compressed magnitudes,
 * Σ_k max(0, log(1 + 1000·|X_k|) − log(1 + 1000·|X'_k|)) with X' the previous frame's spectrum (robust
 * to level: a rise counts by its ratio, not its size).
 */

/** Products are folded into the sum before they could overflow (each ratio is at most 1 + 1000·|X_k|). */
const FOLD_ABOVE = 1e100;

/**
 * A bin rises exactly when its magnitude does (log1p is increasing), and a sum of logarithms is the
 * logarithm of the product: so the rising bins' ratios (1 + 1000·m)/(1 + 1000·m') are multiplied and a
 * logarithm taken only when the product grows large, instead of two log1p per bin on every frame (the
 * costly step). The values match the direct sum up to rounding (a few 1e-16 per bin).
 */
export function onsetStrength(mag: Float32Array, previousMag: Float32Array): number {
  let rise = 0;
  let product = 1;
  for (let k = 0; k < mag.length; k++) {
    const now = mag[k];
    const before = previousMag[k];
    if (!(now > before)) continue;
    product *= (1 + 1000 * now) / (1 + 1000 * before);
    if (product > FOLD_ABOVE) {
      rise += Math.log(product);
      product = 1;
    }
  }
  return rise + Math.log(product);
}
