import { unsharp } from '@earshot/common';
import { resolveDescriptorName } from './descriptor-names.ts';
import { type SearchParameter, SearchSyntaxError } from './errors.ts';
import { closeMatches, filterFieldNames, lookupFilterField } from './fields.ts';
import type { FieldRef, FilterNode, FilterValue, RangeBound } from './filter-ast.ts';
import {
  fieldLabel,
  type RawValue,
  readBool,
  readDate,
  readGeoShape,
  readLatLon,
  readLocalParams,
  readNumber,
  readPackGrouping,
  ValueError,
} from './filter-values.ts';

export interface FilterParseOptions {
  /** Which request parameter the text came from; errors name it. Default `filter`. */
  parameter?: SearchParameter;
  /** `descriptors`: content-search names (dotted, `[i]`, `sharp`), `=` accepted for `:`. */
  mode?: 'filter' | 'descriptors';
  /** The instant `NOW` means; injectable for tests. */
  now?: Date;
  /** Fixed-length descriptor names (`lowlevel.mfcc.mean`) content filters may use; unset = any well-formed name. */
  descriptorNames?: ReadonlySet<string>;
  /** Descriptor names whose values are per-sound lists (`rhythm.onset_times`): refused, naming them. */
  variableLengthDescriptors?: ReadonlySet<string>;
}

/** Bounds that keep a hostile filter from costing more than a normal one to parse, compile and plan. */
export const FILTER_LIMITS = { maxLength: 4000, maxDepth: 24, maxConditions: 128 } as const;

const SPACE = /\s/;

/**
 * Recursive-descent parser for the Lucene-like `filter` language (and the content-search
 * `descriptors_filter`). Precedence: NOT binds tightest, then AND (explicit or by juxtaposition),
 * then OR. Values are type-checked against their field here, so the compiler never sees a bad one.
 */
export function parseFilter(text: string, options: FilterParseOptions = {}): FilterNode {
  return new FilterParser(text, options).parse();
}

class FilterParser {
  private pos = 0;
  private depth = 0;
  private conditions = 0;
  private readonly parameter: SearchParameter;
  private readonly descriptors: boolean;
  private readonly now: Date;

  constructor(
    private readonly src: string,
    private readonly options: FilterParseOptions,
  ) {
    this.parameter = options.parameter ?? 'filter';
    this.descriptors = options.mode === 'descriptors';
    this.now = options.now ?? new Date();
  }

  parse(): FilterNode {
    if (this.src.length > FILTER_LIMITS.maxLength) {
      throw this.error(`longer than ${FILTER_LIMITS.maxLength} characters`, FILTER_LIMITS.maxLength);
    }
    // PostgreSQL text cannot hold NUL; refuse it here rather than as a database error.
    const nul = this.src.indexOf('\u0000');
    if (nul >= 0) throw this.error('it contains a NUL character', nul);
    this.skipSpace();
    if (this.atEnd()) throw this.error('it is empty', 0);
    const node = this.parseOr(false);
    this.skipSpace();
    if (!this.atEnd()) {
      throw this.error(this.peek() === ')' ? 'unbalanced ")"' : `unexpected "${this.peek()}"`, this.pos);
    }
    return node;
  }

  // ---- clause level -------------------------------------------------------------------------

  private parseOr(inGroup: boolean, field?: FieldRef): FilterNode {
    const children = [this.parseAnd(inGroup, field)];
    for (;;) {
      this.skipSpace();
      if (!this.takeOperator('OR', '||')) break;
      children.push(this.parseAnd(inGroup, field));
    }
    return children.length === 1 ? children[0] : { kind: 'or', children };
  }

  private parseAnd(inGroup: boolean, field?: FieldRef): FilterNode {
    const children: FilterNode[] = [];
    for (;;) {
      this.skipSpace();
      const start = this.pos;
      if (this.atEnd() || this.peek() === ')' || this.isOperator('OR', '||')) {
        if (children.length === 0) {
          if (this.atEnd() || this.peek() === ')') {
            throw this.error(
              this.atEnd() ? 'unexpected end, expected a condition' : 'expected a condition before ")"',
              start,
            );
          }
          throw this.error('expected a condition before OR', start);
        }
        break;
      }
      const explicitAnd = this.takeOperator('AND', '&&');
      if (explicitAnd) {
        if (children.length === 0) throw this.error('expected a condition before AND', start);
        this.skipSpace();
        if (
          this.atEnd() ||
          this.peek() === ')' ||
          this.isOperator('OR', '||') ||
          this.isOperator('AND', '&&')
        ) {
          throw this.error('expected a condition after AND', this.pos);
        }
      }
      children.push(this.parseUnary(inGroup, field));
    }
    return children.length === 1 ? children[0] : { kind: 'and', children };
  }

  private parseUnary(inGroup: boolean, field?: FieldRef): FilterNode {
    const start = this.pos;
    if (this.takeOperator('NOT', '!')) {
      this.skipSpace();
      if (this.atEnd()) throw this.error('expected a condition after NOT', this.pos);
      return { kind: 'not', child: this.nested(() => this.parseUnary(inGroup, field)) };
    }
    const c = this.peek();
    if ((c === '-' || c === '+') && this.pos + 1 < this.src.length && !SPACE.test(this.src[this.pos + 1])) {
      this.pos++;
      const child = this.nested(() => this.parseUnary(inGroup, field));
      return c === '-' ? { kind: 'not', child } : child;
    }
    if (c === '-' || c === '+') throw this.error(`expected a condition right after "${c}"`, start);
    return field ? this.parseValueTerm(field) : this.parsePrimary();
  }

  private parsePrimary(): FilterNode {
    const start = this.pos;
    if (this.peek() === '(') {
      this.pos++;
      const node = this.nested(() => this.parseOr(true));
      this.expectClose(start);
      return node;
    }
    if (this.src.startsWith('{!', this.pos)) return this.parseLocalParams();
    if (this.src.startsWith('*:*', this.pos)) {
      this.pos += 3;
      return { kind: 'all' };
    }
    const field = this.parseFieldName();
    return this.parseFieldValue(field);
  }

  private parseLocalParams(): FilterNode {
    const start = this.pos;
    const close = this.src.indexOf('}', start);
    if (close < 0) throw this.error('"{!" is never closed by "}"', start);
    this.pos = close + 1;
    this.count(start);
    return this.wrap(() => readLocalParams(this.src.slice(start + 1, close), start));
  }

  private parseFieldName(): FieldRef {
    const start = this.pos;
    let name = '';
    while (!this.atEnd()) {
      const c = this.peek();
      if (/[A-Za-z0-9_.]/.test(c)) {
        name += c;
        this.pos++;
      } else if (c === '\\' && this.pos + 1 < this.src.length) {
        name += this.src[this.pos + 1];
        this.pos += 2;
      } else if (c === '[' && this.descriptors && name) {
        const m = /^\[(\d{1,4})\]/.exec(this.src.slice(this.pos));
        if (!m) throw this.error('a descriptor dimension is written [<index>]', this.pos);
        name += m[0];
        this.pos += m[0].length;
      } else break;
    }
    // The contract spells one field with a space: "is explicit".
    if (name === 'is' && /^ explicit[:=]/.test(this.src.slice(this.pos))) {
      name = 'is explicit';
      this.pos += ' explicit'.length;
    }
    const sep = this.peek();
    if (!name) {
      const found = this.atEnd() ? 'the end' : `"${sep}"`;
      throw this.error(`expected a field name, found ${found}`, start);
    }
    if (sep !== ':' && !(this.descriptors && sep === '=')) {
      if (['and', 'or', 'not'].includes(name.toLowerCase())) {
        throw this.error(`operators are upper case: write ${name.toUpperCase()}, not ${name}`, start);
      }
      if (name === 'TO') throw this.error('"TO" only goes inside a range [a TO b]', start);
      throw this.error(`expected "field:value", found "${name}" without a field`, start);
    }
    this.pos++;
    return this.resolveField(name, start);
  }

  private resolveField(name: string, position: number): FieldRef {
    if (this.descriptors) {
      try {
        return resolveDescriptorName(
          name,
          this.options.descriptorNames,
          this.options.variableLengthDescriptors,
        );
      } catch (e) {
        if (e instanceof ValueError) throw this.error(e.message, position);
        throw e;
      }
    }
    const def = lookupFilterField(name);
    if (def) return { kind: 'field', def };
    const near = closeMatches(name, filterFieldNames());
    const hint = near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : '';
    throw this.error(`unknown field "${name}"${hint}`, position);
  }

  // ---- value level --------------------------------------------------------------------------

  /** What follows `field:`: a value, a range, or a parenthesised group of values. */
  private parseFieldValue(field: FieldRef): FilterNode {
    const colon = this.pos - 1;
    if (this.atEnd() || SPACE.test(this.peek()) || this.peek() === ')') {
      throw this.error(
        `expected a value after "${this.src.slice(this.fieldStart(colon), colon + 1)}"`,
        this.pos,
      );
    }
    if (this.peek() === '(') {
      const start = this.pos;
      this.pos++;
      const node = this.nested(() => this.parseOr(true, field));
      this.expectClose(start);
      return node;
    }
    return this.parseValueTerm(field);
  }

  private parseValueTerm(field: FieldRef): FilterNode {
    const c = this.peek();
    if (c === '(') {
      const start = this.pos;
      this.pos++;
      const node = this.nested(() => this.parseOr(true, field));
      this.expectClose(start);
      return node;
    }
    if (c === '[' || c === '{') return this.parseRange(field);
    const raw = this.readValue(false);
    this.count(raw.position);
    return this.wrap(() => this.typedMatch(field, raw));
  }

  private parseRange(field: FieldRef): FilterNode {
    const start = this.pos;
    const lowerInclusive = this.peek() === '[';
    this.pos++;
    this.skipSpace();
    const lo = this.readValue(true);
    this.skipSpace();
    if (!this.src.startsWith('TO', this.pos) || /[A-Za-z]/.test(this.src[this.pos + 2] ?? '')) {
      const word = /^\S*/.exec(this.src.slice(this.pos))?.[0] ?? '';
      const why = word.toUpperCase() === 'TO' ? '"TO" must be upper case' : 'expected "TO" in the range';
      throw this.error(why, this.pos);
    }
    this.pos += 2;
    this.skipSpace();
    const hi = this.readValue(true);
    this.skipSpace();
    const close = this.peek();
    if (close !== ']' && close !== '}') throw this.error('expected "]" or "}" to close the range', this.pos);
    this.pos++;
    this.count(start);
    return this.wrap(() => this.typedRange(field, lo, hi, lowerInclusive, close === ']'));
  }

  /** A bare word (backslash escapes a character) or a double-quoted string. */
  private readValue(inRange: boolean): RawValue {
    const position = this.pos;
    if (this.peek() === '"') {
      let text = '';
      this.pos++;
      while (!this.atEnd() && this.peek() !== '"') {
        if (this.peek() === '\\' && this.pos + 1 < this.src.length) this.pos++;
        text += this.src[this.pos++];
      }
      if (this.atEnd()) throw this.error('the quote is never closed', position);
      this.pos++;
      return { text, quoted: true, position };
    }
    let text = '';
    while (!this.atEnd()) {
      const c = this.peek();
      if (SPACE.test(c) || c === '(' || c === ')' || c === '"') break;
      if (inRange && (c === ']' || c === '}')) break;
      if (c === '\\') {
        if (this.pos + 1 >= this.src.length)
          throw this.error('a backslash must escape a character', this.pos);
        this.pos++;
      }
      text += this.src[this.pos++];
    }
    if (!text) {
      const what = this.atEnd() ? 'the end' : `"${this.peek()}"`;
      throw this.error(`expected a value, found ${what}`, position);
    }
    return { text, quoted: false, position };
  }

  private typedMatch(field: FieldRef, raw: RawValue): FilterNode {
    if (raw.text === '*' && !raw.quoted) return { kind: 'exists', field };
    if (!raw.quoted && raw.text.includes('*')) {
      throw new ValueError(
        'wildcards are not supported in values (only a lone * for "has a value")',
        raw.position,
      );
    }
    if (field.kind === 'analysis') {
      const value: FilterValue = raw.quoted
        ? { type: 'string', value: unsharp(raw.text) }
        : { type: 'number', value: readNumber(raw, field) };
      return { kind: 'match', field, value };
    }
    const def = field.def;
    switch (def.type) {
      case 'text':
        if (!raw.text.trim()) throw new ValueError('the text value is empty', raw.position);
        return { kind: 'match', field, value: { type: 'text', text: raw.text, phrase: raw.quoted } };
      case 'keyword':
      case 'tags': {
        const value = def.source === 'descriptor' ? unsharp(raw.text) : raw.text;
        if (def.values && !def.values.includes(value)) {
          throw new ValueError(
            `"${value}" is not a value of ${def.name}; use one of ${def.values.join(', ')}`,
            raw.position,
          );
        }
        return { kind: 'match', field, value: { type: 'string', value } };
      }
      case 'int':
      case 'float':
        return { kind: 'match', field, value: { type: 'number', value: readNumber(raw, field) } };
      case 'bool':
        return { kind: 'match', field, value: { type: 'bool', value: readBool(raw, field) } };
      case 'date':
        return { kind: 'match', field, value: { type: 'date', period: readDate(raw, this.now) } };
      case 'geo':
        return readGeoShape(raw);
      case 'pack_grouping':
        return { kind: 'match', field, value: readPackGrouping(raw) };
    }
  }

  private typedRange(
    field: FieldRef,
    lo: RawValue,
    hi: RawValue,
    loInc: boolean,
    hiInc: boolean,
  ): FilterNode {
    const open = (r: RawValue) => r.text === '*' && !r.quoted;
    if (field.kind === 'field' && field.def.values) {
      throw new ValueError(`${field.def.name} takes one of its values, not a range`, lo.position);
    }
    const type = field.kind === 'analysis' ? 'float' : field.def.type;
    if (type === 'geo') {
      if (open(lo) || open(hi)) throw new ValueError('a geotag range needs both corners', lo.position);
      const [minLat, minLon] = readLatLon(lo);
      const [maxLat, maxLon] = readLatLon(hi);
      return { kind: 'geo-box', minLat, minLon, maxLat, maxLon };
    }
    const bound = (r: RawValue, inclusive: boolean, upper: boolean): RangeBound | null => {
      if (open(r)) return null;
      if (type === 'date') {
        const period = readDate(r, this.now);
        // An inclusive upper bound on a truncated date covers its whole period.
        if (upper)
          return inclusive
            ? { value: period.end, inclusive: false }
            : { value: period.start, inclusive: false };
        return inclusive ? { value: period.start, inclusive: true } : { value: period.end, inclusive: true };
      }
      if (type === 'int' || type === 'float') return { value: readNumber(r, field), inclusive };
      throw new ValueError(`field "${fieldLabel(field)}" does not take ranges`, lo.position);
    };
    const lower = bound(lo, loInc, false);
    const upper = bound(hi, hiInc, true);
    return { kind: 'range', field, lower, upper };
  }

  // ---- helpers ------------------------------------------------------------------------------

  private wrap<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof ValueError) throw this.error(e.message, e.position);
      throw e;
    }
  }

  private nested<T>(f: () => T): T {
    if (++this.depth > FILTER_LIMITS.maxDepth) {
      throw this.error(
        `parentheses and negations nest deeper than ${FILTER_LIMITS.maxDepth} levels`,
        this.pos,
      );
    }
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private count(position: number): void {
    if (++this.conditions > FILTER_LIMITS.maxConditions) {
      throw this.error(`more than ${FILTER_LIMITS.maxConditions} conditions`, position);
    }
  }

  private expectClose(open: number): void {
    this.skipSpace();
    if (this.peek() !== ')') throw this.error('the "(" is never closed', open);
    this.pos++;
  }

  private fieldStart(colon: number): number {
    let i = colon;
    while (i > 0 && !SPACE.test(this.src[i - 1]) && this.src[i - 1] !== '(' && this.src[i - 1] !== '-') i--;
    return i;
  }

  /** An operator word must stand alone: `OR` is one, `ORANGE` and `OR:` are not. */
  private isOperator(word: string, symbol: string): boolean {
    if (this.src.startsWith(symbol, this.pos)) {
      return symbol.length > 1 || !SPACE.test(this.src[this.pos + 1] ?? ' ');
    }
    if (!this.src.startsWith(word, this.pos)) return false;
    const next = this.src[this.pos + word.length];
    return next === undefined || SPACE.test(next) || next === '(';
  }

  private takeOperator(word: string, symbol: string): boolean {
    if (!this.isOperator(word, symbol)) return false;
    this.pos += this.src.startsWith(symbol, this.pos) ? symbol.length : word.length;
    return true;
  }

  private peek(): string {
    return this.src[this.pos] ?? '';
  }

  private atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  private skipSpace(): void {
    while (this.pos < this.src.length && SPACE.test(this.src[this.pos])) this.pos++;
  }

  private error(reason: string, position: number): SearchSyntaxError {
    return new SearchSyntaxError(this.parameter, reason, position);
  }
}
