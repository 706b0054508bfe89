/**
 * Keeps the k entries of lowest cost seen so far, in a binary max-heap on cost (the root is the
 * worst entry kept), so a scan of n candidates costs O(n log k). Ties keep the smaller id first,
 * so results are deterministic.
 */
export class TopK {
  private readonly ids: Float64Array;
  private readonly costs: Float64Array;
  private count = 0;

  constructor(readonly k: number) {
    this.ids = new Float64Array(Math.max(0, k));
    this.costs = new Float64Array(Math.max(0, k));
  }

  /** The cost an entry must beat to be kept (Infinity while not full). */
  get threshold(): number {
    return this.count < this.k ? Number.POSITIVE_INFINITY : this.costs[0];
  }

  offer(id: number, cost: number): void {
    if (this.k === 0) return;
    if (this.count < this.k) {
      let i = this.count++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(cost, id, this.costs[parent], this.ids[parent])) break;
        this.costs[i] = this.costs[parent];
        this.ids[i] = this.ids[parent];
        i = parent;
      }
      this.costs[i] = cost;
      this.ids[i] = id;
      return;
    }
    if (!this.worse(this.costs[0], this.ids[0], cost, id)) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.count) break;
      const right = left + 1;
      let child = left;
      if (
        right < this.count &&
        this.worse(this.costs[right], this.ids[right], this.costs[left], this.ids[left])
      ) {
        child = right;
      }
      if (!this.worse(this.costs[child], this.ids[child], cost, id)) break;
      this.costs[i] = this.costs[child];
      this.ids[i] = this.ids[child];
      i = child;
    }
    this.costs[i] = cost;
    this.ids[i] = id;
  }

  /** The kept entries, best (lowest cost) first. */
  sorted(): Array<{ id: number; cost: number }> {
    const out: Array<{ id: number; cost: number }> = [];
    for (let i = 0; i < this.count; i++) out.push({ id: this.ids[i], cost: this.costs[i] });
    return out.sort((a, b) => a.cost - b.cost || a.id - b.id);
  }

  private worse(costA: number, idA: number, costB: number, idB: number): boolean {
    return costA > costB || (costA === costB && idA > idB);
  }
}
