/** `YYYY-MM-DDTHH:MM:SS.fff` in UTC without a zone, as the contract shows version 2 timestamps. */
export function v2Timestamp(date: Date): string {
  return date.toISOString().slice(0, 23);
}

/** `YYYY-MM-DDTHH:MM:SS`, the contract's form for user join dates. */
export function v2Date(date: Date): string {
  return date.toISOString().slice(0, 19);
}
