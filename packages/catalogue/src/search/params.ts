import { type SearchParameter, SearchSyntaxError } from './errors.ts';
import { closeMatches } from './fields.ts';

export const SORT_OPTIONS = [
  'score',
  'duration_desc',
  'duration_asc',
  'created_desc',
  'created_asc',
  'downloads_desc',
  'downloads_asc',
  'rating_desc',
  'rating_asc',
] as const;
export type SortOption = (typeof SORT_OPTIONS)[number];

/** `sort` (v2) / `s` (v1). Missing or empty means `score`; anything else unknown is an error. */
export function parseSort(value: string | undefined, parameter: SearchParameter = 'sort'): SortOption {
  const v = (value ?? '').trim();
  if (!v) return 'score';
  if ((SORT_OPTIONS as readonly string[]).includes(v)) return v as SortOption;
  const near = closeMatches(v, SORT_OPTIONS);
  const hint = near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(', ')}?)` : '';
  throw new SearchSyntaxError(
    parameter,
    `unknown sort "${v}"${hint}; use one of ${SORT_OPTIONS.join(', ')}` +
      (parameter === 'sort' ? ', or target values such as bpm:120' : ''),
    0,
  );
}

/** The fields a text query searches, each with its weight (0 = not searched). */
export interface FieldWeights {
  readonly id: number;
  readonly tag: number;
  readonly description: number;
  readonly username: number;
  readonly pack: number;
  readonly name: number;
}

/** Upstream's `SEARCH_SOUNDS_DEFAULT_FIELD_WEIGHTS`. */
export const DEFAULT_WEIGHTS: FieldWeights = { id: 4, tag: 4, description: 3, username: 1, pack: 2, name: 2 };

const WEIGHT_NAMES: Record<string, keyof FieldWeights> = {
  id: 'id',
  sound_id: 'id',
  tag: 'tag',
  tags: 'tag',
  description: 'description',
  username: 'username',
  pack: 'pack',
  packname: 'pack',
  pack_tokenized: 'pack',
  name: 'name',
  original_filename: 'name',
};

/**
 * `weights=field:int,field:int`. Listed fields replace the defaults entirely (as in dismax, an
 * unlisted field is not searched). A weight of 0 leaves the field out.
 */
export function parseWeights(value: string | undefined): FieldWeights {
  const v = (value ?? '').trim();
  if (!v) return DEFAULT_WEIGHTS;
  const weights: Record<keyof FieldWeights, number> = {
    id: 0,
    tag: 0,
    description: 0,
    username: 0,
    pack: 0,
    name: 0,
  };
  let offset = 0;
  for (const piece of v.split(',')) {
    const at = v.indexOf(piece, offset);
    offset = at + piece.length;
    const m = /^\s*([A-Za-z_]+)\s*:\s*(\d{1,4})\s*$/.exec(piece);
    if (!m) {
      throw new SearchSyntaxError('weights', `"${piece.trim()}" is not "field:integer"`, at);
    }
    const field = WEIGHT_NAMES[m[1]];
    if (!field) {
      const near = closeMatches(m[1], Object.keys(WEIGHT_NAMES));
      const hint = near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : '';
      throw new SearchSyntaxError('weights', `"${m[1]}" is not a searchable field${hint}`, at);
    }
    weights[field] = Number(m[2]);
  }
  if (Object.values(weights).every((w) => w === 0)) {
    throw new SearchSyntaxError('weights', 'at least one field needs a positive weight', 0);
  }
  return weights;
}

/** v2 `group_by_pack`: only the exact string "1" turns grouping on (anything else is "off", as upstream). */
export function parseGroupByPack(value: string | undefined): boolean {
  return value === '1';
}

/** v1 `g`: any value other than "0" or empty turns grouping on. */
export function parseV1Grouping(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0';
}
