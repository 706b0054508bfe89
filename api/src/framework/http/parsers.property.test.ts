import type { EarshotError } from '@earshot/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PageNotFound, pageWindow } from '../../application/paging.ts';
import { MAX_PAGE_SIZE, readPageQuery } from '../../v2/presenters/pagination.ts';
import { A_FIELDS, B_FIELDS, LIST_DEFAULT_FIELDS, selectFields } from '../../v2/presenters/sound-fields.ts';
import { parseRange } from '../files/send-file.ts';
import { MAX_ID } from './params.ts';

/**
 * Property tests of the request parsers that live in the API (issue 19): paging, the downloads'
 * Range header, `fields`. Any text gives a value or a 4xx error with a message, and what the
 * grammar accepts is read as written. Seeded by fast-check; a failure prints seed and input.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 500);

const numberish = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', ' 1 ', '+2', '-0', '1e3', 'last', '0x10', '١', '9'.repeat(400)),
);

describe('pagination', () => {
  it.each(['search', 'list'] as const)(
    'answers a page inside the id range or a 4xx for any text (%s)',
    (style) => {
      fc.assert(
        fc.property(
          fc.option(numberish, { nil: undefined }),
          fc.option(numberish, { nil: undefined }),
          (page, pageSize) => {
            try {
              const q = readPageQuery({ page, page_size: pageSize }, style);
              expect(q.pageSize).toBeGreaterThanOrEqual(1);
              expect(q.pageSize).toBeLessThanOrEqual(MAX_PAGE_SIZE);
              if (q.page !== 'last') {
                expect(Number.isSafeInteger(q.page) && q.page >= 1).toBe(true);
                // The offset a statement gets is one the database can take.
                const window = pageWindow(q.page, q.pageSize);
                expect(window.offset).toBeLessThanOrEqual(MAX_ID);
              }
            } catch (err) {
              expect(err).toBeInstanceOf(PageNotFound);
              expect((err as EarshotError).status).toBe(404);
              expect((err as Error).message.length).toBeGreaterThan(0);
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
  );

  it('reads a page and page size as written when they are in range', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: MAX_PAGE_SIZE }),
        (page, size) => {
          expect(readPageQuery({ page: String(page), page_size: String(size) }, 'search')).toMatchObject({
            page,
            pageSize: size,
          });
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('Range header', () => {
  it('answers a range inside the file, unsatisfiable, or the whole file, for any header', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc
            .tuple(
              fc.oneof(
                fc.constant(''),
                fc.nat().map(String),
                fc.bigInt({ min: 0n, max: 10n ** 22n }).map(String),
              ),
              fc.oneof(fc.constant(''), fc.nat().map(String)),
            )
            .map(([a, b]) => `bytes=${a}-${b}`),
        ),
        fc.integer({ min: 0, max: 1e9 }),
        (header, size) => {
          const r = parseRange(header, size);
          if (r === undefined || r === 'unsatisfiable') return;
          expect(Number.isSafeInteger(r.start) && Number.isSafeInteger(r.end)).toBe(true);
          expect(r.start).toBeGreaterThanOrEqual(0);
          expect(r.start).toBeLessThanOrEqual(r.end);
          expect(r.end).toBeLessThan(size);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('reads bytes=a-b as written when it lies inside the file', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e9 }), fc.nat(), fc.nat(), (size, x, y) => {
        const start = x % size;
        const end = start + (y % (size - start));
        expect(parseRange(`bytes=${start}-${end}`, size)).toEqual({ start, end });
        expect(parseRange(`bytes=${start}-`, size)).toEqual({ start, end: size - 1 });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fields', () => {
  it.each(['A', 'B'] as const)(
    'selects only known fields, in the canonical order, for any text (variant %s)',
    (variant) => {
      const canonical = variant === 'A' ? A_FIELDS : B_FIELDS;
      const names = fc.oneof(
        fc.constantFrom(...canonical, '*', 'all_descriptors', 'is explicit', ''),
        fc.string({ maxLength: 8 }),
      );
      fc.assert(
        fc.property(fc.array(names, { maxLength: 12 }), fc.boolean(), (parts, allowScore) => {
          const raw = parts.join(',');
          const asked = raw.split(',');
          const { fields } = selectFields(raw, { variant, kind: 'list', allowScore });
          expect(fields.every((f) => canonical.includes(f))).toBe(true);
          // Nothing asked: the list defaults, in their documented order.
          if (raw === '') {
            expect(fields).toEqual(LIST_DEFAULT_FIELDS);
            return;
          }
          expect(fields).toEqual(canonical.filter((f) => fields.includes(f)));
          if (!asked.includes('*')) {
            // Exactly the listed known ones (a search's own fields only where allowed).
            const wanted = canonical.filter(
              (f) =>
                asked.map((a) => (a === 'is explicit' ? 'is_explicit' : a)).includes(f) &&
                ((f !== 'score' && f !== 'distance_to_target') || allowScore),
            );
            expect(fields).toEqual(wanted);
          }
        }),
        { numRuns: RUNS },
      );
    },
  );
});
