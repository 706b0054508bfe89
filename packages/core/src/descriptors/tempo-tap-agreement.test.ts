import { describe, expect, it } from 'vitest';
import { beatErrors, beatInfoGain, errorEntropy, maxAgreement } from './tempo-tap-agreement.ts';

const grid = (start: number, period: number, count: number) =>
  Array.from({ length: count }, (_, i) => start + i * period);

describe('beat errors and entropy', () => {
  it('errors are relative to half the neighbouring interval', () => {
    expect(beatErrors([0, 1, 2], [1.1, 1.9])).toEqual([expect.closeTo(0.1, 9), expect.closeTo(-0.1, 9)]);
  });

  it('errors that all agree have entropy 0; spread errors have more', () => {
    expect(errorEntropy([0, 0, 0])).toBe(0);
    expect(errorEntropy([-0.4, -0.2, 0, 0.2, 0.4])).toBeGreaterThan(2);
  });

  it('identical sequences have the full information gain log2(40)', () => {
    const a = grid(5, 0.5, 20);
    expect(beatInfoGain(a, a)).toBeCloseTo(Math.log2(40), 9);
    expect(beatInfoGain(a, [6])).toBe(0);
  });
});

describe('maxAgreement', () => {
  it('keeps the candidate the others agree with, with its mean gain as confidence', () => {
    const steady = grid(0, 0.5, 30);
    const nearly = steady.map((t, i) => t + (i % 2 ? 0.01 : -0.01) + 0.02);
    const other = grid(0.13, 0.37, 40);
    const { ticks, confidence } = maxAgreement([other, nearly, steady]);
    expect(ticks === steady || ticks === nearly).toBe(true);
    expect(confidence).toBeGreaterThan(1.5);
  });

  it('keeps the first candidate with confidence 0 when no beat lies after 5 s', () => {
    const a = grid(0.5, 0.5, 8);
    const b = grid(0.3, 0.4, 10);
    expect(maxAgreement([a, b])).toEqual({ ticks: a, confidence: 0 });
  });
});
