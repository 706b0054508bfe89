import { describe, expect, it } from 'vitest';
import { checkLeaves, keepLeaves } from './validation.ts';

/** Ten recordings: native values `native(i)`, essentia.js values `ours(i)`, under lowlevel.x.mean. */
function pairs(native: (i: number) => number, ours: (i: number) => number) {
  return Array.from({ length: 10 }, (_, i) => ({
    native: { lowlevel: { x: { mean: native(i) } } },
    essentiaJs: { lowlevel: { x: { mean: ours(i) } } },
  }));
}

describe('checkLeaves', () => {
  it('reproduces a leaf whose values match to float32 rounding', () => {
    const [c] = checkLeaves(
      pairs(
        (i) => i * 0.37,
        (i) => i * 0.37 * (1 + 1e-7),
      ),
    );
    expect(c).toMatchObject({
      leaf: 'lowlevel.x.mean',
      family: 'lowlevel.x',
      n: 10,
      matching: 1,
      reproduced: true,
    });
    expect(c.rho).toBeCloseTo(1, 12);
  });

  it('does not reproduce a leaf in the same order on another scale (a different definition)', () => {
    const [c] = checkLeaves(
      pairs(
        (i) => i + 1,
        (i) => 2 * (i + 1),
      ),
    );
    expect(c.rho).toBeCloseTo(1, 12);
    expect(c.matching).toBe(0);
    expect(c.reproduced).toBe(false);
  });

  it('does not reproduce a leaf whose values match on most recordings but are ranked otherwise', () => {
    // Two recordings swapped: 80% match, ρ < 0.99.
    const [c] = checkLeaves(
      pairs(
        (i) => i,
        (i) => (i === 0 ? 9 : i === 9 ? 0 : i),
      ),
    );
    expect(c.matching).toBe(0.8);
    expect(c.reproduced).toBe(false);
  });

  it('does not reproduce a leaf whose few mismatching values break the ranking', () => {
    // 39 of 40 match (97.5%), but the loudest recording reads as the quietest.
    const many = Array.from({ length: 40 }, (_, i) => ({
      native: { lowlevel: { x: { mean: i } } },
      essentiaJs: { lowlevel: { x: { mean: i === 39 ? -1 : i } } },
    }));
    const [c] = checkLeaves(many);
    expect(c.matching).toBe(0.975);
    expect(c.reproduced).toBe(false);
  });

  it('reproduces a tied leaf whose filter agreement suffers from rounding alone', () => {
    // Half the recordings tie at the floor; rounding puts some of ours on the other side of the quartile.
    const floor = -1151.29;
    const [c] = checkLeaves(
      pairs(
        (i) => (i < 5 ? floor : i),
        (i) => (i < 5 ? floor * (1 + (i % 2 ? 1e-7 : -1e-7)) : i),
      ),
    );
    expect(c.agreement).toBeLessThan(0.95);
    expect(c.reproduced).toBe(true);
  });

  it('needs the same constant where the native extractor writes one', () => {
    expect(
      checkLeaves(
        pairs(
          () => 0,
          () => 0,
        ),
      )[0].reproduced,
    ).toBe(true);
    expect(
      checkLeaves(
        pairs(
          () => 0,
          (i) => i * 1e-3,
        ),
      )[0].reproduced,
    ).toBe(false);
  });
});

describe('keepLeaves', () => {
  it('keeps the listed leaves, vector dimensions in place', () => {
    const tree = {
      lowlevel: { a: { mean: 1, var: 2 }, v: { mean: [1, 2, 3] } },
      tonal: { key: { key: 'C' } },
    };
    expect(keepLeaves(tree, new Set(['lowlevel.a.var', 'lowlevel.v.mean[2]']))).toEqual({
      lowlevel: { a: { var: 2 }, v: { mean: [null, null, 3] } },
    });
  });
});
