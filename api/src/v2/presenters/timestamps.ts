/** `YYYY-MM-DDTHH:MM:SS.fff` in UTC without a zone, as the contract shows version 2 timestamps. */
export function v2Timestamp(date: Date): string {
  const t = date.getTime();
  // Years outside four digits (and invalid dates, which throw) take toISOString's own form.
  if (!(t >= FIRST_FOUR_DIGIT_YEAR && t < FIRST_FIVE_DIGIT_YEAR)) return date.toISOString().slice(0, 23);
  // Put together from the day's text and tables, several times cheaper than
  // `toISOString().slice(0, 23)` (a page of the changes feed shows 5000).
  const day = Math.floor(t / DAY_MS);
  if (day !== lastDay) {
    lastDay = day;
    lastDayText = date.toISOString().slice(0, 11);
  }
  let rest = t - day * DAY_MS;
  const ms = rest % 1000;
  rest = (rest - ms) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${lastDayText}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}${MILLISECONDS[ms]}`;
}

/** `YYYY-MM-DDTHH:MM:SS`, the contract's form for user join dates. */
export function v2Date(date: Date): string {
  return date.toISOString().slice(0, 19);
}

const DAY_MS = 86_400_000;
const FIRST_FOUR_DIGIT_YEAR = Date.parse('0000-01-01T00:00:00Z');
const FIRST_FIVE_DIGIT_YEAR = Date.parse('+010000-01-01T00:00:00Z');
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const MILLISECONDS = Array.from({ length: 1000 }, (_, n) => `.${String(n).padStart(3, '0')}`);
/** The day of the latest timestamp written and its `YYYY-MM-DDT`: consecutive ones mostly share it. */
let lastDay = Number.NaN;
let lastDayText = '';
