/**
 * Dates in filters, as Solr reads them: `NOW`, ISO timestamps (possibly truncated: `2014`,
 * `2014-04-16`), each followed by date math (`+1DAY`, `-2YEARS`, `/DAY`). All arithmetic is UTC.
 *
 * A value denotes a period: a truncated date is the whole year/month/day it names, an instant is
 * one millisecond. `created:2014-04-16` therefore matches the whole day, as upstream's DateRangeField does.
 */

export interface DatePeriod {
  /** Inclusive start. */
  start: Date;
  /** Exclusive end. */
  end: Date;
}

type Unit = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'milli';

const UNITS: Record<string, Unit> = {
  YEAR: 'year',
  YEARS: 'year',
  MONTH: 'month',
  MONTHS: 'month',
  DAY: 'day',
  DAYS: 'day',
  DATE: 'day',
  HOUR: 'hour',
  HOURS: 'hour',
  MINUTE: 'minute',
  MINUTES: 'minute',
  SECOND: 'second',
  SECONDS: 'second',
  MILLI: 'milli',
  MILLIS: 'milli',
  MILLISECOND: 'milli',
  MILLISECONDS: 'milli',
};

const ISO = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?)?)?)?(Z)?/;

/** Thrown with the offset (inside the value) of the part that could not be read. */
export class DateMathError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export function parseDateExpression(text: string, now: Date): DatePeriod {
  let pos = 0;
  let period: DatePeriod;
  if (text.startsWith('NOW')) {
    period = { start: new Date(now.getTime()), end: new Date(now.getTime() + 1) };
    pos = 3;
  } else {
    const m = ISO.exec(text);
    if (!m) throw new DateMathError(`"${text}" is not a date (use NOW or an ISO 8601 timestamp)`, 0);
    period = isoPeriod(m);
    pos = m[0].length;
  }
  while (pos < text.length) {
    const op = text[pos];
    if (op === '/') {
      const unit = readUnit(text, pos + 1);
      const start = roundDown(period.start, unit.unit);
      period = { start, end: add(start, unit.unit, 1) };
      pos = unit.next;
    } else if (op === '+' || op === '-') {
      const digits = /^\d+/.exec(text.slice(pos + 1));
      if (!digits) throw new DateMathError(`expected a number after "${op}" in date math`, pos + 1);
      const amount = Number(digits[0]) * (op === '-' ? -1 : 1);
      if (!Number.isSafeInteger(amount) || Math.abs(amount) > 1_000_000) {
        throw new DateMathError('date math amount is too large', pos + 1);
      }
      const unit = readUnit(text, pos + 1 + digits[0].length);
      const span = period.end.getTime() - period.start.getTime();
      const start = add(period.start, unit.unit, amount);
      period = { start, end: new Date(start.getTime() + span) };
      pos = unit.next;
    } else {
      throw new DateMathError(`unexpected "${op}" in date "${text}"`, pos);
    }
  }
  if (Number.isNaN(period.start.getTime()) || Number.isNaN(period.end.getTime())) {
    throw new DateMathError(`"${text}" is out of the supported date range`, 0);
  }
  return period;
}

function readUnit(text: string, at: number): { unit: Unit; next: number } {
  const m = /^[A-Z]+/.exec(text.slice(at));
  const unit = m ? UNITS[m[0]] : undefined;
  if (!m || !unit) {
    throw new DateMathError('expected a date unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, MILLI)', at);
  }
  return { unit, next: at + m[0].length };
}

function isoPeriod(m: RegExpExecArray): DatePeriod {
  const [, y, mo, d, h, mi, s, frac] = m;
  const fields = [y, mo, d, h, mi, s].map((v) => (v === undefined ? undefined : Number(v)));
  const ms = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const [year, month = 1, day = 1, hour = 0, minute = 0, second = 0] = fields as number[];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    throw new DateMathError(`"${m[0]}" is not a valid date`, 0);
  }
  const start = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  start.setUTCFullYear(year); // Date.UTC maps years 0–99 to 1900–1999
  if (start.getUTCDate() !== day) throw new DateMathError(`"${m[0]}" is not a valid date`, 0);
  const precision: Unit =
    frac !== undefined || s !== undefined
      ? s !== undefined && frac === undefined
        ? 'second'
        : 'milli'
      : mi !== undefined
        ? 'minute'
        : h !== undefined
          ? 'hour'
          : d !== undefined
            ? 'day'
            : mo !== undefined
              ? 'month'
              : 'year';
  // A full timestamp is an instant; a truncated one spans its last given unit.
  const span: Unit = precision === 'second' ? 'milli' : precision;
  return { start, end: add(start, span, 1) };
}

function roundDown(d: Date, unit: Unit): Date {
  const r = new Date(d.getTime());
  switch (unit) {
    case 'year':
      r.setUTCMonth(0, 1);
      r.setUTCHours(0, 0, 0, 0);
      break;
    case 'month':
      r.setUTCDate(1);
      r.setUTCHours(0, 0, 0, 0);
      break;
    case 'day':
      r.setUTCHours(0, 0, 0, 0);
      break;
    case 'hour':
      r.setUTCMinutes(0, 0, 0);
      break;
    case 'minute':
      r.setUTCSeconds(0, 0);
      break;
    case 'second':
      r.setUTCMilliseconds(0);
      break;
    case 'milli':
      break;
  }
  return r;
}

function add(d: Date, unit: Unit, n: number): Date {
  const r = new Date(d.getTime());
  switch (unit) {
    case 'year':
      r.setUTCFullYear(r.getUTCFullYear() + n);
      break;
    case 'month':
      r.setUTCMonth(r.getUTCMonth() + n);
      break;
    case 'day':
      r.setUTCDate(r.getUTCDate() + n);
      break;
    case 'hour':
      r.setTime(r.getTime() + n * 3_600_000);
      break;
    case 'minute':
      r.setTime(r.getTime() + n * 60_000);
      break;
    case 'second':
      r.setTime(r.getTime() + n * 1000);
      break;
    case 'milli':
      r.setTime(r.getTime() + n);
      break;
  }
  return r;
}
