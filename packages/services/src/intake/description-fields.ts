import {
  categoryNames,
  type Geotag,
  LICENSE_CHOICES,
  LICENSES,
  type LicenseName,
  normalizeTags,
} from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';

/** The description fields of upload, describe, edit and the import sidecar (API.md "Upload parameters"). */
export const DESCRIPTION_FIELDS = [
  'name',
  'bst_category',
  'tags',
  'description',
  'license',
  'pack',
  'geotag',
] as const;
export type DescriptionField = (typeof DESCRIPTION_FIELDS)[number];

/** The fields as they arrive: text (a form), tags also as a list (a JSON sidecar). */
export type RawDescription = Partial<Record<Exclude<DescriptionField, 'tags'>, string | undefined>> & {
  tags?: string | readonly string[];
};

/** A checked description; absent fields were not given. `null` clears (edit only: pack, geotag). */
export interface SoundDescription {
  name?: string;
  tags?: string[];
  description?: string;
  license?: LicenseName;
  /** Taxonomy names from `bst_category`. */
  category?: string;
  subcategory?: string;
  packName?: string | null;
  geotag?: Geotag | null;
}

/**
 * describe: a new sound's description (bst_category, tags, description and license required, at
 * least 3 tags); edit: any subset, same rules for what is given; import: any subset, and no tag
 * count (imported collections carry what their authors wrote), the other rules as for describe.
 */
export type DescriptionMode = 'describe' | 'edit' | 'import';

/** Per-field messages, shown by the API as `{"detail": {"tags": ["…"]}}`. */
export class DescriptionError extends ValidationError {
  constructor(readonly fields: Record<string, string[]>) {
    super(
      `Invalid description: ${Object.entries(fields)
        .map(([name, messages]) => `${name}: ${messages.join(' ')}`)
        .join('; ')}`,
      fields,
    );
  }
}

export const MIN_TAGS = 3;
export const MAX_TAGS = 30;
/** Upstream's tags are slugs of at most 100 characters (its Tag model); longer ones are refused, not cut. */
export const MAX_TAG_LENGTH = 100;
/** `geotag_zoom` is a smallint column. */
export const MAX_ZOOM = 32_767;
const MAX_NAME = 512;
const MAX_PACK_NAME = 255;
const MAX_DESCRIPTION = 100_000;
const REQUIRED = 'This field is required.';
const LICENSE_MESSAGE = `Invalid License, must be either ${LICENSE_CHOICES}.`;

/**
 * Upstream's rule for "an upload with a description": any of these given; `bst_category` alone
 * does not count (UPSTREAM-FACTS.md §5).
 */
export function hasDescription(raw: RawDescription): boolean {
  return (['name', 'license', 'tags', 'geotag', 'pack', 'description'] as const).some(
    (f) => raw[f] !== undefined,
  );
}

/** Checks every field at once and returns the description, or throws one DescriptionError naming each bad field. */
export function validateDescription(raw: RawDescription, mode: DescriptionMode): SoundDescription {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const out: SoundDescription = {};
  const text = (field: DescriptionField): string | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    return typeof value === 'string' ? value.trim() : undefined;
  };
  if (mode === 'describe') {
    for (const field of ['bst_category', 'tags', 'description', 'license'] as const) {
      const value = raw[field];
      if (value === undefined || (typeof value === 'string' && value.trim() === '')) fail(field, REQUIRED);
    }
  }

  const name = text('name');
  if (name !== undefined) {
    if (name === '' && mode === 'edit') fail('name', 'This field may not be blank.');
    else if (name.length > MAX_NAME)
      fail('name', `Ensure this field has no more than ${MAX_NAME} characters.`);
    else if (name !== '') out.name = name;
  }

  if (raw.tags !== undefined && !errors.tags) {
    const tags = cleanTags(raw.tags);
    if (mode !== 'import' && tags.length < MIN_TAGS) fail('tags', 'You should add at least 3 tags...');
    else if (tags.length > MAX_TAGS)
      fail('tags', 'There can be maximum 30 tags, please select the most relevant ones!');
    else if (tags.some((t) => t.length > MAX_TAG_LENGTH))
      fail('tags', `Ensure each tag has no more than ${MAX_TAG_LENGTH} characters.`);
    else out.tags = tags;
  }

  const description = text('description');
  if (description !== undefined && !errors.description) {
    if (description === '') fail('description', 'This field may not be blank.');
    else if (description.length > MAX_DESCRIPTION)
      fail('description', `Ensure this field has no more than ${MAX_DESCRIPTION} characters.`);
    else out.description = description;
  }

  const license = text('license');
  if (license !== undefined && !errors.license) {
    const match = LICENSES.find((l) => l.toLowerCase() === license.toLowerCase());
    if (match) out.license = match;
    else fail('license', LICENSE_MESSAGE);
  }

  const bst = text('bst_category');
  if (bst !== undefined && !errors.bst_category) {
    const names = bstNames(bst);
    if (names) Object.assign(out, names);
    else
      fail('bst_category', 'Invalid BST category, should be a valid Broad Sound Taxonomy subcategory code.');
  }

  const pack = text('pack');
  if (pack !== undefined) {
    if (pack.length > MAX_PACK_NAME)
      fail('pack', `Ensure this field has no more than ${MAX_PACK_NAME} characters.`);
    // In an edit an empty pack takes the sound out of its pack; elsewhere it means none.
    else if (pack !== '') out.packName = pack;
    else if (mode === 'edit') out.packName = null;
  }

  const geotag = text('geotag');
  if (geotag !== undefined) {
    if (geotag === '' && mode === 'edit') out.geotag = null;
    else if (geotag !== '') {
      const parsed = parseGeotag(geotag);
      if (typeof parsed === 'string') fail('geotag', parsed);
      else out.geotag = parsed;
    }
  }

  if (Object.keys(errors).length) throw new DescriptionError(errors);
  return out;
}

/**
 * Tags as upstream cleans them: characters other than letters, digits, spaces and dashes split
 * tags, dashes collapse, then the catalogue's normalizeTags (lower case, no repeats). A list keeps
 * its items apart (a multi-word item becomes one dashed tag).
 */
export function cleanTags(tags: string | readonly string[]): string[] {
  const words =
    typeof tags === 'string'
      ? tags.replace(/[^a-zA-Z0-9\s-]/g, ' ').split(/\s+/)
      : tags.map((t) => t.replace(/[^a-zA-Z0-9\s-]/g, ' ').trim());
  return normalizeTags(words.map((w) => w.replace(/-{2,}/g, '-').replace(/^-+|-+$/g, '')));
}

/** `fx-a` → { category: 'Sound effects', subcategory: 'Animals' }; a top-level code alone is refused. */
export function bstNames(code: string): { category: string; subcategory: string } | undefined {
  const names = categoryNames(code);
  return names?.subcategory ? { category: names.category, subcategory: names.subcategory } : undefined;
}

/** `lat,lon,zoom` (zoom an integer of at least 11, as upstream) → a geotag, or the problem in words. */
export function parseGeotag(value: string): Geotag | string {
  const parts = value.split(',').map((p) => p.trim());
  const number = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
  if (parts.length !== 3 || !number.test(parts[0]) || !number.test(parts[1]) || !/^[-+]?\d+$/.test(parts[2]))
    return "Geotag should have the format 'float,float,integer' (for latitude, longitude and zoom respectively).";
  const [lat, lon, zoom] = parts.map(Number);
  if (lat < -90 || lat > 90) return 'Latitude must be in the range [-90,90].';
  if (lon < -180 || lon > 180) return 'Longitude must be in the range [-180,180].';
  if (zoom < 11) return 'Zoom must be at least 11.';
  if (zoom > MAX_ZOOM) return `Zoom must be at most ${MAX_ZOOM}.`;
  return { lat, lon, zoom };
}
