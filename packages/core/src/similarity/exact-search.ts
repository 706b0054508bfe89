import { TopK } from './top-k.ts';

/**
 * Exact k-nearest search by inner product over unit vectors stored row-wise in one flat
 * Float32Array (row i belongs to ids[i]). It is the ground truth the HNSW graph is measured
 * against, and the strategy for small candidate sets. Returns cost = 1 - dot, best first.
 */
export function exactNearest(
  query: Float32Array,
  vectors: Float32Array,
  ids: ArrayLike<number>,
  k: number,
  allow?: (id: number) => boolean,
): Array<{ id: number; cost: number }> {
  const dimension = query.length;
  const top = new TopK(Math.min(k, ids.length)); // never more places than rows
  for (let row = 0, offset = 0; row < ids.length; row++, offset += dimension) {
    const id = ids[row];
    if (allow && !allow(id)) continue;
    let sum = 0;
    for (let j = 0; j < dimension; j++) sum += query[j] * vectors[offset + j];
    const cost = 1 - sum;
    if (cost <= top.threshold) top.offer(id, cost);
  }
  return top.sorted();
}
