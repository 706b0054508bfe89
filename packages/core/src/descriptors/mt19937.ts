/**
 * The 32-bit Mersenne Twister (Matsumoto & Nishimura 1998), as C++'s std::mt19937 defines it. The
 * reference's beat tracker adds a tie-breaking dither from this generator with a fixed seed; drawing the
 * same numbers keeps our period path on the reference's when two periods score the same.
 */
export function mt19937(seed: number): () => number {
  const n = 624;
  const state = new Uint32Array(n);
  state[0] = seed >>> 0;
  for (let i = 1; i < n; i++) {
    const prev = state[i - 1] ^ (state[i - 1] >>> 30);
    // 1812433253 · prev + i, mod 2³² (Math.imul multiplies modulo 2³²).
    state[i] = (Math.imul(prev, 1812433253) + i) >>> 0;
  }
  let index = n;
  const twist = () => {
    for (let i = 0; i < n; i++) {
      const y = (state[i] & 0x80000000) | (state[(i + 1) % n] & 0x7fffffff);
      let next = state[(i + 397) % n] ^ (y >>> 1);
      if (y & 1) next ^= 0x9908b0df;
      state[i] = next >>> 0;
    }
    index = 0;
  };
  return () => {
    if (index >= n) twist();
    let y = state[index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  };
}

/** The generator's largest value (std::mt19937::max()). */
export const MT19937_MAX = 0xffffffff;
