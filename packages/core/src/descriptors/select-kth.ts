/**
 * Hoare's selection: reorders a[lo..hi] so that a[k] holds the value a sort would put there, with
 * nothing larger before it and nothing smaller after it, and returns that value. Median-of-three
 * pivots, and scans that stop on values equal to the pivot, keep it linear on sorted input and on
 * series full of equal values (silence rates). The medians and percentiles of the descriptors read
 * order statistics through it instead of sorting whole series.
 */
export function selectKth(a: Float32Array | Float64Array, k: number, lo: number, hi: number): number {
  let left = lo;
  let right = hi;
  while (right > left) {
    const m = (left + right) >> 1;
    if (a[m] < a[left]) swap(a, m, left);
    if (a[right] < a[left]) swap(a, right, left);
    if (a[right] < a[m]) swap(a, right, m);
    const pivot = a[m];
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return a[k];
  }
  return a[k];
}

function swap(a: Float32Array | Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
