import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SearchSyntaxError } from './errors.ts';
import type { FilterNode, RangeBound } from './filter-ast.ts';
import { FILTER_LIMITS, parseFilter } from './filter-parser.ts';
import { parseSort, SORT_OPTIONS } from './params.ts';
import { parseTextQuery, QUERY_LIMITS, type QueryClause } from './query-parser.ts';

/**
 * Property tests of the search languages (issue 19): whatever the text, a parser answers a value
 * or a SearchSyntaxError (a 400 with a detail), never anything else; what the grammar accepts is
 * accepted, and what a printer writes parses back to the same thing. Seeded by fast-check; a
 * failure prints its seed and the shrunk input (replay with `{ seed, path }`).
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 500);
const NOW = new Date(Date.UTC(2025, 0, 1));

/** Text made of the language's own pieces, so generated strings get past the first character. */
const filterNoise = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'tag',
        'duration',
        'username',
        'created',
        'pack',
        'id',
        'geotag',
        'license',
        '.lowlevel.mfcc.mean[1]',
        'rhythm.bpm',
      ),
      fc.constantFrom(
        ':',
        '[',
        ']',
        '{',
        '}',
        '(',
        ')',
        '"',
        ' TO ',
        ' AND ',
        ' OR ',
        'NOT ',
        '*',
        '-',
        '+',
        '\\',
        ' ',
        '=',
        ',',
        'NOW-1DAY',
        '1e999',
        'NaN',
      ),
      fc.string({ maxLength: 6 }),
      fc.integer().map(String),
      fc.double().map(String),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

function expectParsedOrSyntaxError(run: () => unknown, text: string): void {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(SearchSyntaxError);
    const e = err as SearchSyntaxError;
    expect(e.message.length).toBeGreaterThan(0);
    if (e.position !== undefined) {
      expect(e.position).toBeGreaterThanOrEqual(0);
      expect(e.position).toBeLessThanOrEqual(text.length);
    }
  }
}

describe('filter parser', () => {
  it.each(['filter', 'descriptors'] as const)(
    'answers a filter or a SearchSyntaxError for any text (%s mode)',
    (mode) => {
      fc.assert(
        fc.property(fc.oneof(filterNoise, fc.string({ maxLength: 200, unit: 'binary' })), (text) => {
          const parameter = mode === 'filter' ? 'filter' : 'descriptors_filter';
          expectParsedOrSyntaxError(() => parseFilter(text, { mode, parameter, now: NOW }), text);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it('refuses anything longer than its limit, quickly, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 50 }), (chunk) => {
        const text = chunk.repeat(Math.ceil((FILTER_LIMITS.maxLength + 1) / chunk.length));
        expect(() => parseFilter(text, { now: NOW })).toThrow(SearchSyntaxError);
      }),
      { numRuns: 100 },
    );
  });

  it('accepts what the grammar says and prints back to the same tree', () => {
    fc.assert(
      fc.property(grammarFilter(3), (text) => {
        const tree = parseFilter(text, { now: NOW });
        expect(parseFilter(printFilter(tree), { now: NOW })).toEqual(tree);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a range with the bounds as written', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 0, max: 1e6 }), (low, width) => {
        const tree = parseFilter(`duration:[${low} TO ${low + width}]`, { now: NOW });
        expect(tree).toMatchObject({
          kind: 'range',
          lower: { value: low, inclusive: true },
          upper: { value: low + width },
        });
      }),
      { numRuns: RUNS },
    );
  });
});

/** Filters from the documented grammar: numeric ranges and values, tags, AND/OR/NOT, parentheses. */
function grammarFilter(depth: number): fc.Arbitrary<string> {
  const word = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
  const num = fc.integer({ min: -1000, max: 1000 });
  const leaf = fc.oneof(
    word.map((w) => `tag:${w}`),
    word.map((w) => `username:"${w}"`),
    num.map((n) => `samplerate:${n}`),
    fc.tuple(num, fc.nat(1000)).map(([a, w]) => `duration:[${a} TO ${a + w}]`),
    num.map((n) => `duration:[${n} TO *]`),
  );
  if (depth === 0) return leaf;
  const sub = grammarFilter(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    {
      weight: 1,
      arbitrary: fc
        .tuple(sub, fc.constantFrom(' AND ', ' OR ', ' '), sub)
        .map(([a, op, b]) => `${a}${op}${b}`),
    },
    { weight: 1, arbitrary: sub.map((s) => `(${s})`) },
    { weight: 1, arbitrary: sub.map((s) => `NOT (${s})`) },
  );
}

/** The filter text of a tree (the kinds the grammar above produces), fully parenthesized. */
function printFilter(node: FilterNode): string {
  switch (node.kind) {
    case 'and':
      return `(${node.children.map(printFilter).join(' AND ')})`;
    case 'or':
      return `(${node.children.map(printFilter).join(' OR ')})`;
    case 'not':
      return `(NOT ${printFilter(node.child)})`;
    case 'all':
      return '*:*';
    case 'range': {
      if (node.field.kind !== 'field') throw new Error('analysis fields are not printed');
      const bound = (b: RangeBound | null) =>
        b === null ? '*' : String(b.value instanceof Date ? b.value.toISOString() : b.value);
      return `${node.field.def.name}:${node.lower?.inclusive === false ? '{' : '['}${bound(node.lower)} TO ${bound(node.upper)}${node.upper?.inclusive === false ? '}' : ']'}`;
    }
    case 'match': {
      if (node.field.kind !== 'field') throw new Error('analysis fields are not printed');
      const v = node.value;
      const text =
        v.type === 'text'
          ? v.phrase
            ? `"${v.text}"`
            : v.text
          : v.type === 'string'
            ? `"${v.value}"`
            : v.type === 'number' || v.type === 'bool'
              ? String(v.value)
              : undefined;
      if (text === undefined) throw new Error(`value ${v.type} is not printed`);
      return `${node.field.def.name}:${text}`;
    }
    default:
      throw new Error(`${node.kind} is not printed`);
  }
}

describe('text query parser', () => {
  it('answers clauses or a SearchSyntaxError for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 300 }), fc.string({ maxLength: 100, unit: 'binary' })),
        (text) => {
          expectParsedOrSyntaxError(() => parseTextQuery(text), text);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses a NUL anywhere, naming it and where it is', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), fc.string({ maxLength: 50 }), (a, b) => {
        const text = `${a}\u0000${b}`;
        fc.pre(text.length <= QUERY_LIMITS.maxLength);
        expect(() => parseTextQuery(text)).toThrow(/NUL/);
      }),
      { numRuns: RUNS },
    );
  });

  it('prints back to the same clauses', () => {
    const clause = fc.record({
      occur: fc.constantFrom<QueryClause['occur']>('must', 'not'),
      phrase: fc.boolean(),
      words: fc.array(fc.stringMatching(/^[a-z0-9][a-z0-9_.]{0,6}$/), { minLength: 1, maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(clause, { maxLength: QUERY_LIMITS.maxClauses }), (clauses) => {
        const expected = clauses.map((c) => ({
          occur: c.occur,
          phrase: c.phrase,
          text: c.phrase ? c.words.join(' ') : c.words[0],
        }));
        const text = expected
          .map((c) => `${c.occur === 'not' ? '-' : ''}${c.phrase ? `"${c.text}"` : c.text}`)
          .join(' ');
        const parsed = parseTextQuery(text).clauses.map(({ occur, phrase, text }) => ({
          occur,
          phrase,
          text,
        }));
        expect(parsed).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('sort parser', () => {
  it('accepts exactly the documented options (and nothing, meaning score)', () => {
    for (const option of SORT_OPTIONS) expect(parseSort(` ${option} `)).toBe(option);
    expect(parseSort(undefined)).toBe('score');
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const trimmed = text.trim();
        if (trimmed === '') expect(parseSort(text)).toBe('score');
        else if ((SORT_OPTIONS as readonly string[]).includes(trimmed)) expect(parseSort(text)).toBe(trimmed);
        else expect(() => parseSort(text)).toThrow(SearchSyntaxError);
      }),
      { numRuns: RUNS },
    );
  });
});
