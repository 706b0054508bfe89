/** `YYYY-MM-DDTHH:MM:SS.fff` in UTC without a zone, as the contract shows version 2 timestamps. */
export function v2Timestamp(date: Date): string {
  const year = date.getUTCFullYear();
  // Written out from its parts, several times cheaper than `toISOString().slice(0, 23)` (a page of
  // the changes feed shows 5000). Years outside four digits (and invalid dates, which throw) take
  // toISOString's own form.
  if (!(year >= 0 && year <= 9999)) return date.toISOString().slice(0, 23);
  const ms = date.getUTCMilliseconds();
  return `${pad4(year)}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}T${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}`;
}

/** `YYYY-MM-DDTHH:MM:SS`, the contract's form for user join dates. */
export function v2Date(date: Date): string {
  return date.toISOString().slice(0, 19);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

function pad4(n: number): string {
  return n >= 1000 ? `${n}` : `${n}`.padStart(4, '0');
}
