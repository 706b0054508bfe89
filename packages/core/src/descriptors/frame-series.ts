/** Growable per-frame storage: one Float32Array per scalar descriptor, one flat frame-major array per vector. */
export class FrameSeries {
  readonly scalars = new Map<string, Float32Array>();
  readonly vectors = new Map<string, { dims: number; data: Float32Array }>();

  constructor(readonly frames: number) {}

  scalar(name: string): Float32Array {
    let s = this.scalars.get(name);
    if (!s) {
      s = new Float32Array(this.frames);
      this.scalars.set(name, s);
    }
    return s;
  }

  vector(name: string, dims: number): Float32Array {
    let v = this.vectors.get(name);
    if (!v) {
      v = { dims, data: new Float32Array(this.frames * dims) };
      this.vectors.set(name, v);
    }
    return v.data;
  }
}
