import v8 from 'node:v8';

/**
 * Gives the serving process's old generation room to breathe: after each full collection V8 lets
 * it grow by twice its live size before the next, instead of the minimum (about 10%) it falls to
 * once collections look costly. Why: every MB of an upload or a pack download passes through
 * 64 KiB–1 MiB buffers outside the heap, and with the minimum headroom (≈ 9 MB over the API's
 * ≈ 45 MB heap) V8 started marking again as soon as it finished: a full mark of the whole heap for
 * every ~15 MB transferred, the largest CPU cost of an upload (CPU profile and --trace-gc of
 * `earshot serve` during `npx earshot bench upload`; the bare node:http floor, with a 4 MB heap,
 * hardly notices the same buffers). The flag is read each time V8 sets the next limit, so setting
 * it at start-up is enough; the price is a heap up to about twice its live size between
 * collections, a few tens of MB.
 */
export function widenHeapHeadroom(): void {
  v8.setFlagsFromString('--heap-growing-percent=100');
}
