import { LICENSES } from '@earshot/catalogue';
import { NOTE_NAMES } from '@earshot/common';
import { CONTAINERS } from '@earshot/core';
import { START_WALK } from '../../application/list-walks.ts';
import { readListPosition } from './walk-paging.ts';

/**
 * The search page's query string (a plain GET form, so it works without JavaScript) turned into
 * the API's own search parameters: `query`, a `filter` in the API's filter language, `sort` and the
 * page. The facets are this page's; the search itself is the API's use case.
 */
export interface SearchPageParams {
  q: string;
  tags: string[];
  licenses: string[];
  types: string[];
  pack: string;
  /** One uploader's sounds only (a link of the username facet). */
  username: string;
  duration: string;
  key: string;
  bpmMin: string;
  bpmMax: string;
  loudMin: string;
  loudMax: string;
  sort: string;
  /** The page of an old address (`page=N`), paged by number; 1 otherwise. */
  page: number;
  /** The cursor of a page of a walk through the results (walk-paging.ts); '' on a first view. */
  cursor: string;
}

export { LICENSES };

/** The type facet: one entry per container (`aif` is a name of AIFF, not a format of its own). */
export const FILE_TYPES = CONTAINERS;

/** Duration facet: label and the range in seconds ("*" = open). */
export const DURATIONS: ReadonlyArray<{ value: string; label: string; range: string }> = [
  { value: 'short', label: 'Under 1 s', range: '[0 TO 1]' },
  { value: 'medium', label: '1 to 10 s', range: '[1 TO 10]' },
  { value: 'long', label: '10 s to 1 min', range: '[10 TO 60]' },
  { value: 'longer', label: 'Over 1 min', range: '[60 TO *]' },
];

export const SORTS: ReadonlyArray<{ value: string; label: string }> = [
  { value: 'score', label: 'Best match' },
  { value: 'created_desc', label: 'Newest first' },
  { value: 'created_asc', label: 'Oldest first' },
  { value: 'downloads_desc', label: 'Most downloaded' },
  { value: 'rating_desc', label: 'Best rated' },
  { value: 'duration_asc', label: 'Shortest first' },
  { value: 'duration_desc', label: 'Longest first' },
];

export const KEYS: readonly string[] = NOTE_NAMES.flatMap((note) => [`${note} major`, `${note} minor`]);

const MAX_PAGE = 10_000;

function list(value: unknown): string[] {
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return [
    ...new Set(all.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim())),
  ];
}

function one(value: unknown): string {
  const [first] = list(value);
  return first ?? '';
}

/** A number typed in a range box, or '' when it is not one (the box is then ignored, not an error). */
function numberText(value: unknown): string {
  const t = one(value);
  return /^-?\d+(\.\d+)?$/.test(t) ? t : '';
}

/** Reads the page's query; unknown values of a closed list are dropped rather than refused. */
export function readSearchPage(query: Record<string, unknown>): SearchPageParams {
  const page = Number.parseInt(one(query.page), 10);
  const position = readListPosition(query);
  const sort = one(query.sort);
  const duration = one(query.duration);
  const key = one(query.key);
  return {
    q: one(query.q).slice(0, 500),
    tags: list(query.tag).map(clean).filter(Boolean).slice(0, 10),
    licenses: list(query.license).filter((l) => (LICENSES as readonly string[]).includes(l)),
    types: list(query.type).filter((t) => (FILE_TYPES as readonly string[]).includes(t)),
    pack: clean(one(query.pack)).slice(0, 200),
    username: clean(one(query.username)).slice(0, 150),
    duration: DURATIONS.some((d) => d.value === duration) ? duration : '',
    key: KEYS.includes(key) ? key : '',
    bpmMin: numberText(query.bpm_min),
    bpmMax: numberText(query.bpm_max),
    loudMin: numberText(query.loudness_min),
    loudMax: numberText(query.loudness_max),
    sort: SORTS.some((s) => s.value === sort) ? sort : '',
    page: Number.isInteger(page) && page >= 1 && page <= MAX_PAGE ? page : 1,
    cursor: 'cursor' in position && position.cursor !== START_WALK ? position.cursor : '',
  };
}

/** A value inside the filter language's quotes: quotes and backslashes cannot be typed through. */
function clean(value: string): string {
  return value.replace(/["\\]/g, ' ').replace(/\s+/g, ' ').trim();
}

function quoted(value: string): string {
  return `"${clean(value)}"`;
}

function range(min: string, max: string): string | undefined {
  if (min === '' && max === '') return undefined;
  return `[${min === '' ? '*' : min} TO ${max === '' ? '*' : max}]`;
}

/** The API's `filter` for the chosen facets (clauses are ANDed; the values of one facet ORed). */
export function searchFilter(p: SearchPageParams): string | undefined {
  const clauses: string[] = [];
  for (const tag of p.tags) clauses.push(`tag:${quoted(tag)}`);
  const anyOf = (field: string, values: string[]) =>
    values.length ? clauses.push(`(${values.map((v) => `${field}:${quoted(v)}`).join(' OR ')})`) : 0;
  anyOf('license', p.licenses);
  anyOf('type', p.types);
  if (p.pack) clauses.push(`pack:${quoted(p.pack)}`);
  if (p.username) clauses.push(`username:${quoted(p.username)}`);
  const duration = DURATIONS.find((d) => d.value === p.duration);
  if (duration) clauses.push(`duration:${duration.range}`);
  if (p.key) clauses.push(`tonality:${quoted(p.key)}`);
  const bpm = range(p.bpmMin, p.bpmMax);
  if (bpm) clauses.push(`bpm:${bpm}`);
  const loudness = range(p.loudMin, p.loudMax);
  if (loudness) clauses.push(`loudness:${loudness}`);
  return clauses.length ? clauses.join(' ') : undefined;
}

/**
 * The query string of these parameters with some changed (facet links, pages); '' values dropped.
 * A link changes the search, so it goes to a first page (a new walk) unless it names its page.
 */
export function searchHref(p: SearchPageParams, change: Partial<SearchPageParams> = {}): string {
  const v = { ...p, page: 1, cursor: '', ...change };
  const entries: Array<[string, string]> = [];
  const add = (name: string, value: string) => {
    if (value !== '') entries.push([name, value]);
  };
  add('q', v.q);
  for (const t of v.tags) add('tag', t);
  for (const l of v.licenses) add('license', l);
  for (const t of v.types) add('type', t);
  add('pack', v.pack);
  add('username', v.username);
  add('duration', v.duration);
  add('key', v.key);
  add('bpm_min', v.bpmMin);
  add('bpm_max', v.bpmMax);
  add('loudness_min', v.loudMin);
  add('loudness_max', v.loudMax);
  add('sort', v.sort);
  if (v.page > 1) add('page', String(v.page));
  add('cursor', v.cursor);
  const qs = new URLSearchParams(entries).toString();
  return qs ? `/search/?${qs}` : '/search/';
}
