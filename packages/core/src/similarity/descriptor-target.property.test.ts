import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDescriptorTarget } from './descriptor-target.ts';
import { InvalidTargetError } from './errors.ts';

/**
 * Property tests of the `target` language (issue 19): any text is a target or an
 * InvalidTargetError (a 400 with a detail); what the grammar accepts is read back as written.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 500);

const noise = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'lowlevel.mfcc.mean',
        '.rhythm.bpm',
        'x[3]',
        ':',
        ',',
        ' ',
        '[',
        ']',
        '-',
        '+',
        'e',
        '.',
        '1e999',
        'NaN',
        'Infinity',
      ),
      fc.integer().map(String),
      fc.double().map(String),
      fc.string({ maxLength: 5 }),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));

describe('target parser', () => {
  it('answers a target or an InvalidTargetError for any text', () => {
    fc.assert(
      fc.property(fc.oneof(noise, fc.string({ maxLength: 100, unit: 'binary' })), (text) => {
        try {
          const target = parseDescriptorTarget(text);
          if (target.kind === 'sound')
            expect(Number.isSafeInteger(target.soundId) && target.soundId >= 1).toBe(true);
          // Every value of a target is a number a distance can be computed with.
          else
            for (const term of target.terms)
              for (const v of term.values) expect(Number.isFinite(v)).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidTargetError);
          expect((err as Error).message).toMatch(/^Invalid target/);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a sound id as written, and refuses ids beyond the safe integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (id) => {
        expect(parseDescriptorTarget(` ${id} `)).toEqual({ kind: 'sound', soundId: id });
      }),
      { numRuns: RUNS },
    );
    expect(() => parseDescriptorTarget('9007199254740993')).toThrow(InvalidTargetError);
    expect(() => parseDescriptorTarget('0')).toThrow(InvalidTargetError);
  });

  it('refuses a value too large for a number (1e999 reads as Infinity)', () => {
    expect(() => parseDescriptorTarget('lowlevel.pitch.mean:1e999')).toThrow(/out of range/);
    expect(() => parseDescriptorTarget('lowlevel.mfcc.mean:1,-1e400,2')).toThrow(/out of range/);
  });

  it('prints back to the same terms', () => {
    const term = fc.record({
      descriptor: fc.stringMatching(/^\.?[a-z_]{1,8}(\.[a-z_]{1,8}){0,2}$/),
      values: fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 5 }), (terms) => {
        const text = terms
          .map((t) => `${t.descriptor}:${t.values.map((v) => String(v)).join(',')}`)
          .join(' ');
        // String(-0) is "0", so -0 comes back as 0.
        const normalized = terms.map((t) => ({
          descriptor: t.descriptor,
          values: t.values.map((v) => (Object.is(v, -0) ? 0 : v)),
        }));
        expect(parseDescriptorTarget(text)).toEqual({ kind: 'values', terms: normalized });
      }),
      { numRuns: RUNS },
    );
  });
});
