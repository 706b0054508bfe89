import { describe, expect, it } from 'vitest';
import { MonoSink } from './mono-sink.ts';

function bytesOf(values: number[]): Buffer {
  return Buffer.from(new Float32Array(values).buffer);
}

describe('MonoSink', () => {
  it('reassembles floats split at any byte between chunks', () => {
    const values = [0.5, -0.25, 1, -1, 0.125, 0.75, -0.5];
    const bytes = bytesOf(values);
    for (const cuts of [[1], [3, 5], [4, 9, 10, 11], [2, 6, 13, 27]]) {
      const sink = new MonoSink(values.length);
      let from = 0;
      for (const to of [...cuts, bytes.length]) {
        sink.write(bytes.subarray(from, to));
        from = to;
      }
      expect(Array.from(sink.finish())).toEqual(values);
    }
  });

  it('writes into the buffer sized from the probe and returns a view of it (no copy)', () => {
    const sink = new MonoSink(1000);
    sink.write(bytesOf(new Array(1000).fill(0.1)));
    const samples = sink.finish();
    expect(samples.length).toBe(1000);
    expect(samples.buffer.byteLength).toBeLessThan((1000 + 10_000) * 4);
  });

  it('still takes every sample when the header understated the length', () => {
    const sink = new MonoSink(10);
    const values = Array.from({ length: 20_000 }, (_, i) => i / 20_000);
    sink.write(bytesOf(values));
    const samples = sink.finish();
    expect(samples.length).toBe(20_000);
    expect(samples[19_999]).toBeCloseTo(19_999 / 20_000, 6);
  });

  it("with a cap, stops the stream past it with the cap's error, never holding more", () => {
    const sink = new MonoSink(10, { samples: 1000, error: () => new Error('too long') });
    sink.write(bytesOf(new Array(600).fill(0.5)));
    expect(() => sink.write(bytesOf(new Array(600).fill(0.5)))).toThrow('too long');
    expect(sink.samplesWritten).toBe(600);
    expect(sink.finish().buffer.byteLength).toBeLessThanOrEqual(1000 * 4);
  });

  it('with a cap and no error, keeps the samples up to it and drops the rest', () => {
    const sink = new MonoSink(100_000, { samples: 1000 });
    sink.write(bytesOf(Array.from({ length: 1500 }, (_, i) => i / 2000)));
    const samples = sink.finish();
    expect(samples.length).toBe(1000);
    expect(samples[999]).toBeCloseTo(999 / 2000, 6);
    expect(samples.buffer.byteLength).toBeLessThanOrEqual(1000 * 4);
  });
});
