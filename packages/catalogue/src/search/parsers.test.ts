import { describe, expect, it } from 'vitest';
import { parseDateExpression } from './date-math.ts';
import { SearchSyntaxError } from './errors.ts';
import { parseFilter } from './filter-parser.ts';
import { DEFAULT_WEIGHTS, parseGroupByPack, parseSort, parseV1Grouping, parseWeights } from './params.ts';
import { idTerms, parseTextQuery } from './query-parser.ts';

const NOW = new Date('2024-05-05T10:30:00Z');
const iso = (d: Date) => d.toISOString();

function syntaxError(run: () => unknown): SearchSyntaxError {
  try {
    run();
  } catch (e) {
    if (e instanceof SearchSyntaxError) return e;
    throw e;
  }
  throw new Error('expected a SearchSyntaxError');
}

describe('date math', () => {
  it('NOW with arithmetic and rounding, in UTC', () => {
    expect(iso(parseDateExpression('NOW', NOW).start)).toBe('2024-05-05T10:30:00.000Z');
    expect(iso(parseDateExpression('NOW-1YEAR/DAY', NOW).start)).toBe('2023-05-05T00:00:00.000Z');
    expect(iso(parseDateExpression('NOW/DAY+1DAY', NOW).start)).toBe('2024-05-06T00:00:00.000Z');
    expect(iso(parseDateExpression('NOW-3MONTHS', NOW).start)).toBe('2024-02-05T10:30:00.000Z');
    expect(iso(parseDateExpression('NOW/HOUR-90MINUTES', NOW).start)).toBe('2024-05-05T08:30:00.000Z');
  });
  it('truncated ISO dates span their period, full timestamps are instants', () => {
    const day = parseDateExpression('2014-04-16', NOW);
    expect([iso(day.start), iso(day.end)]).toEqual(['2014-04-16T00:00:00.000Z', '2014-04-17T00:00:00.000Z']);
    const year = parseDateExpression('2014', NOW);
    expect([iso(year.start), iso(year.end)]).toEqual([
      '2014-01-01T00:00:00.000Z',
      '2015-01-01T00:00:00.000Z',
    ]);
    const instant = parseDateExpression('1976-03-06T23:59:59.999Z', NOW);
    expect(instant.end.getTime() - instant.start.getTime()).toBe(1);
    expect(iso(parseDateExpression('1976-03-06T23:59:59.999Z+1YEAR', NOW).start)).toBe(
      '1977-03-06T23:59:59.999Z',
    );
  });
  it('rejects what is not a date, with the offset of the problem', () => {
    expect(() => parseDateExpression('yesterday', NOW)).toThrow(/not a date/);
    expect(() => parseDateExpression('NOW-1FORTNIGHT', NOW)).toThrow(/date unit/);
    expect(() => parseDateExpression('2014-13-01', NOW)).toThrow(/not a valid date/);
    expect(() => parseDateExpression('2014-02-30', NOW)).toThrow(/not a valid date/);
  });
});

describe('filter parser errors', () => {
  const cases: [string, number, RegExp][] = [
    ['duration:', 9, /expected a value after "duration:"/],
    ['tag:a duration: 5', 15, /expected a value after "duration:"/],
    ['durration:[1 TO 2]', 0, /unknown field "durration"; did you mean "duration"/],
    ['tag:a or tag:b', 6, /operators are upper case/],
    ['duration:[1 to 2]', 12, /"TO" must be upper case/],
    ['duration:[1 TO 2', 16, /expected "]" or "}"/],
    ['tag:(a OR (b', 10, /never closed/],
    ['tag:"unclosed', 4, /quote is never closed/],
    ['tag:a)', 5, /unbalanced "\)"/],
    ['tag:a AND', 9, /after AND/],
    ['OR tag:a', 0, /before OR/],
    ['guitar', 0, /"field:value"/],
    ['duration:abc', 9, /not a number/],
    ['is_remix:maybe', 9, /not a boolean/],
    ['tag:[a TO b]', 5, /does not take ranges/],
    ['created:yesterday', 8, /not a date/],
    ['created:[NOW-1FORTNIGHT TO *]', 14, /date unit/],
    ['geotag:"Intersects(1 2 3)"', 7, /four numbers/],
    ['geotag:"Intersects(0 100 1 1)"', 7, /latitude 100/],
    ['{!geofilt sfield=geotag pt=41.3,2.1}', 0, /needs d=/],
    ['{!geofilt sfield=other pt=1,2 d=3}', 0, /sfield=geotag/],
    ['{!geofilt pt=1,2 d=3', 0, /never closed/],
    ['tag:pian*', 4, /wildcards/],
    ['pack_grouping:abc', 14, /pack grouping/],
    ['', 0, /empty/],
  ];
  it.each(cases)('%j → position %i', (filter, position, message) => {
    const e = syntaxError(() => parseFilter(filter, { now: NOW }));
    expect(e.message).toMatch(message);
    expect(e.position).toBe(position);
    expect(e.parameter).toBe('filter');
    expect(e.status).toBe(400);
  });
  it('bounds nesting and size', () => {
    expect(syntaxError(() => parseFilter(`${'('.repeat(30)}tag:a${')'.repeat(30)}`)).message).toMatch(
      /nest deeper/,
    );
    expect(syntaxError(() => parseFilter('tag:a '.repeat(200))).message).toMatch(/more than 128 conditions/);
    expect(syntaxError(() => parseFilter(`${'-'.repeat(2000)}tag:a`)).message).toMatch(/nest deeper/);
    expect(syntaxError(() => parseFilter(`${'NOT '.repeat(500)}tag:a`)).message).toMatch(/nest deeper/);
    expect(syntaxError(() => parseFilter(`tag:${'a'.repeat(5000)}`)).message).toMatch(/longer than/);
  });
  it('descriptors_filter errors name their parameter', () => {
    const e = syntaxError(() =>
      parseFilter('lowlevel.mfcc.mean[x]:1', { mode: 'descriptors', parameter: 'descriptors_filter' }),
    );
    expect(e.message).toMatch(/^Invalid descriptors_filter at position 18/);
    const known = new Set(['lowlevel.pitch.mean']);
    expect(
      syntaxError(() => parseFilter('lowlevel.pitch.men:1', { mode: 'descriptors', descriptorNames: known }))
        .message,
    ).toMatch(/did you mean "lowlevel.pitch.mean"/);
  });
  it('descriptors_filter refuses a variable-length or unknown descriptor, naming it', () => {
    const options = {
      mode: 'descriptors',
      parameter: 'descriptors_filter',
      descriptorNames: new Set(['lowlevel.pitch.mean', 'lowlevel.mfcc.mean']),
      variableLengthDescriptors: new Set(['rhythm.onset_times', 'onset_times']),
    } as const;
    for (const [filter, name, position] of [
      ['rhythm.onset_times:[0 TO 1]', 'rhythm.onset_times', 0],
      ['bpm:[1 TO 2] AND .rhythm.onset_times[0]:[0 TO 1]', '.rhythm.onset_times[0]', 17],
      ['onset_times:[0 TO 1]', 'onset_times', 0],
    ] as const) {
      const e = syntaxError(() => parseFilter(filter, options));
      expect(e.message).toContain(`"${name}" is a variable-length descriptor`);
      expect(e.position).toBe(position);
    }
    expect(syntaxError(() => parseFilter('lowlevel.foo.mean:[1 TO 2]', options)).message).toMatch(
      /unknown descriptor "lowlevel.foo.mean"/,
    );
    expect(parseFilter('lowlevel.mfcc.mean[2]:[0 TO 1] lowlevel.pitch.mean:[1 TO 2]', options).kind).toBe(
      'and',
    );
  });
});

describe('filter parser structure', () => {
  it('AND binds tighter than OR, NOT tighter than AND', () => {
    const ast = parseFilter('tag:a OR tag:b tag:c NOT tag:d', { now: NOW });
    expect(ast.kind).toBe('or');
    if (ast.kind !== 'or') return;
    expect(ast.children[1].kind).toBe('and');
  });
  it('field groups distribute the field over their values', () => {
    const ast = parseFilter('type:(wav OR -aiff)');
    expect(ast).toMatchObject({
      kind: 'or',
      children: [{ kind: 'match' }, { kind: 'not', child: { kind: 'match' } }],
    });
  });
  it('an inclusive date upper bound covers its whole period; exclusive bounds shift', () => {
    const ast = parseFilter('created:{2014 TO 2015-06]', { now: NOW });
    expect(ast).toMatchObject({ kind: 'range' });
    if (ast.kind !== 'range') return;
    expect(iso(ast.lower!.value as Date)).toBe('2015-01-01T00:00:00.000Z');
    expect(iso(ast.upper!.value as Date)).toBe('2015-07-01T00:00:00.000Z');
    expect(ast.upper!.inclusive).toBe(false);
  });
  it('geofilt near the antimeridian wraps its box', () => {
    expect(parseFilter('{!bbox sfield=geotag pt=0,179.9 d=100}')).toMatchObject({ kind: 'geo-box' });
    const box = parseFilter('{!bbox sfield=geotag pt=0,179.9 d=100}') as { minLon: number; maxLon: number };
    expect(box.minLon).toBeGreaterThan(box.maxLon);
  });
});

describe('query parser', () => {
  it('empty-like values are the empty query', () => {
    for (const q of ['', '  ', '""', '" "', "''", "' '", '+', '-'])
      expect(parseTextQuery(q).clauses).toEqual([]);
    expect(parseTextQuery(undefined).clauses).toEqual([]);
  });
  it('words, phrases, + and -', () => {
    expect(parseTextQuery('"bass drum" -double +kick snare').clauses).toEqual([
      { occur: 'must', text: 'bass drum', phrase: true, position: 0 },
      { occur: 'not', text: 'double', phrase: false, position: 12 },
      { occur: 'must', text: 'kick', phrase: false, position: 20 },
      { occur: 'must', text: 'snare', phrase: false, position: 26 },
    ]);
  });
  it('an odd number of quotes is as if there were none', () => {
    expect(parseTextQuery('"bass drum').clauses.map((c) => [c.text, c.phrase])).toEqual([
      ['bass', false],
      ['drum', false],
    ]);
    expect(parseTextQuery('a "b c" "d').clauses.every((c) => !c.phrase)).toBe(true);
  });
  it('numbers are id terms', () => {
    expect(idTerms(parseTextQuery('1234 rain "56" -78'))).toEqual([1234]);
  });
  it('limits', () => {
    expect(syntaxError(() => parseTextQuery('a '.repeat(40))).message).toMatch(/more than 32 terms/);
    expect(syntaxError(() => parseTextQuery('x'.repeat(1001), 'q')).message).toMatch(/^Invalid q/);
  });
});

describe('sort, weights, grouping', () => {
  it('sort: every option, default score, unknown is an error with suggestions', () => {
    expect(parseSort(undefined)).toBe('score');
    expect(parseSort('')).toBe('score');
    for (const s of [
      'score',
      'duration_desc',
      'duration_asc',
      'created_desc',
      'created_asc',
      'downloads_desc',
      'downloads_asc',
      'rating_desc',
      'rating_asc',
    ])
      expect(parseSort(s)).toBe(s);
    expect(syntaxError(() => parseSort('rating_dsc')).message).toMatch(/did you mean .*"rating_desc"/);
    expect(syntaxError(() => parseSort('x', 's')).parameter).toBe('s');
  });
  it('weights: defaults, replacement, aliases, errors', () => {
    expect(parseWeights(undefined)).toEqual(DEFAULT_WEIGHTS);
    expect(DEFAULT_WEIGHTS).toEqual({ id: 4, tag: 4, description: 3, username: 1, pack: 2, name: 2 });
    expect(parseWeights('tags:5, original_filename:1')).toEqual({
      id: 0,
      tag: 5,
      description: 0,
      username: 0,
      pack: 0,
      name: 1,
    });
    expect(syntaxError(() => parseWeights('tag:x')).message).toMatch(/"tag:x" is not "field:integer"/);
    expect(syntaxError(() => parseWeights('tag:1,colour:2')).message).toMatch(
      /"colour" is not a searchable field/,
    );
    expect(syntaxError(() => parseWeights('tag:1,tga:2')).message).toMatch(/did you mean "tag"/);
    expect(syntaxError(() => parseWeights('tag:0')).message).toMatch(/positive weight/);
    expect(syntaxError(() => parseWeights('tag:-1')).position).toBe(0);
  });
  it('group_by_pack is on only for "1"; v1 g for anything but 0/empty', () => {
    expect(['1', '0', '', 'true', 'test', undefined].map(parseGroupByPack)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(['1', '0', '', 'yes', undefined].map(parseV1Grouping)).toEqual([true, false, false, true, false]);
  });
});
