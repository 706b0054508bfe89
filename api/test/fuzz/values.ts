import type { Rng } from './rng.ts';

/** Values a real client sends, filled in by the run from the seeded catalogue. */
export interface ValidValues {
  soundIds: number[];
  packIds: number[];
  usernames: string[];
  clientIds: string[];
}

/**
 * A value already written for the URL: either percent-encoded text, or raw characters meant to
 * reach the server as they are (broken escapes, invalid UTF-8 bytes as latin1 characters).
 */
export interface UrlValue {
  raw: string;
}

const LONG = 'a'.repeat(9000);

/** Numbers at the edges of every integer type a database or a JavaScript number has. */
export const HOSTILE_NUMBERS = [
  '0',
  '-1',
  '1',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '1e20',
  '1e308',
  '1e999',
  '-1e20',
  '100000000000000000000',
  '999999999999999',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '1.5',
  '-0',
  '+1',
  ' 1',
  '1 ',
  '01',
  '١٢',
  '',
];

/** Text that has broken parsers, encoders and databases elsewhere. */
export const HOSTILE_TEXT = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '😀',
  'é',
  '\u202e',
  '\ud800',
  "'",
  '"',
  '\\',
  "' OR 1=1 --",
  '%',
  '%%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  ']]>',
  '\u0001\u0002\u001f',
  '\r\nX-Injected: 1',
  '$'.concat('{x}'), // a template placeholder, written so it is not one here
  '{{x}}',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  LONG,
];

/** The search languages, valid and broken (../shared/spec/API.md's filter, sort, descriptors). */
export const FILTERS = [
  'duration:[0 TO 100]',
  'duration:[* TO *]',
  'duration:[100 TO 0]',
  'duration:[1e999 TO -1e999]',
  'duration:[NaN TO 1]',
  'duration:[0 TO',
  'duration:]0 TO 1[',
  'duration:{0 TO 1}',
  'tag:drum',
  'tag:"a b"',
  'tag:"unterminated',
  'tag:',
  ':',
  'tag:(drum OR bass)',
  'tag:((((((((drum',
  '))))',
  '(tag:a AND (tag:b OR NOT tag:c))',
  'NOT',
  'AND OR NOT',
  'username:bob',
  'id:2147483648',
  'id:-1',
  'pack:"x"',
  'geotag:"Intersects(0 0 10 10)"',
  'created:[NOW-7DAY TO NOW]',
  'created:[2020-13-45 TO *]',
  'is_geotagged:1',
  'license:"Creative Commons 0"',
  'channels:2 samplerate:44100',
  'unknownfield:1',
  'ac_tempo:[100 TO 140]',
  '*:*',
  '"',
  '\\',
  `${'('.repeat(5000)}`,
  `${'tag:a AND '.repeat(500)}tag:b`,
];

export const SORTS = [
  'score',
  'duration_desc',
  'duration_asc',
  'created_desc',
  'created_asc',
  'downloads_desc',
  'rating_desc',
  'rating_asc',
  'num_ratings_desc',
  'unknown_desc',
  'duration',
  'desc',
  '_desc',
  'score,duration_desc',
];

export const DESCRIPTOR_FILTERS = [
  '.lowlevel.pitch.mean:[100 TO 300]',
  '.lowlevel.pitch.mean:[* TO *]',
  '.lowlevel.pitch_salience.mean:[0.5 TO 1] AND .rhythm.bpm:[100 TO 140]',
  '.tonal.key_key:"C"',
  '.tonal.key_key:"C" OR .tonal.key_scale:"major"',
  '.lowlevel.mfcc.mean[0]:[-1000 TO 0]',
  '.lowlevel.mfcc.mean[99]:[0 TO 1]',
  '.lowlevel.mfcc.mean[-1]:[0 TO 1]',
  '.nonexistent:[0 TO 1]',
  '.lowlevel.pitch.mean:[300 TO 100]',
  '.lowlevel.pitch.mean:',
  '.lowlevel.pitch.mean:[a TO b]',
  'lowlevel.pitch.mean:[1 TO 2]',
  '(.rhythm.bpm:[1 TO 2]',
  '.',
];

export const TARGETS = [
  '.lowlevel.pitch.mean:220',
  '.lowlevel.pitch.mean:220 .rhythm.bpm:120',
  '.lowlevel.mfcc.mean:[1,2,3]',
  '.lowlevel.mfcc.mean:[1,2,',
  '.lowlevel.pitch.mean:NaN',
  '.lowlevel.pitch.mean:1e999',
  '.nonexistent:1',
  'lowlevel.pitch.mean:1',
  ':',
];

export const FIELDS = [
  'id,name',
  'id,name,previews,images,analysis,ac_analysis',
  '*',
  'id,,name',
  ',',
  'analysis_frames,similar_sounds',
  'nonexistent',
  `${'id,'.repeat(3000)}id`,
];

export const FORMATS = ['json', 'xml', 'yaml', 'api', 'junk', '', 'JSON', 'xml\u0000'];

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** Percent-encodings a tolerant decoder chokes on: broken escapes, overlong and invalid UTF-8. */
export const BROKEN_ENCODINGS = [
  '%',
  '%G0',
  '%2',
  '%00',
  '%C0%AF',
  '%E0%80%AF',
  '%F8%88%80%80%80',
  '%FF',
  '%FE%FF',
  '%ED%A0%80',
  '%C3',
  '%u0041',
  '%25%',
  '\u00ff\u00fe',
  '\u00c0\u00af',
];

/** A value for a parameter, by the parameter's name: mostly the language it speaks, sometimes garbage. */
export function valueFor(name: string, rng: Rng, valid: ValidValues): UrlValue {
  if (rng.chance(0.1)) return { raw: rng.pick(BROKEN_ENCODINGS) };
  if (rng.chance(0.15)) return text(rng.pick(HOSTILE_TEXT));
  if (rng.chance(0.1)) return text(rng.pick(HOSTILE_NUMBERS));
  return text(typedValue(name, rng, valid));
}

function typedValue(name: string, rng: Rng, valid: ValidValues): string {
  switch (name) {
    case 'filter':
      return combine(rng, FILTERS, ' ');
    case 'sort':
      return rng.pick(SORTS);
    case 'descriptors_filter':
      return combine(rng, DESCRIPTOR_FILTERS, ' AND ');
    case 'target':
      return rng.chance(0.4) ? String(rng.pick(valid.soundIds)) : rng.pick(TARGETS);
    case 'fields':
    case 'descriptors':
      return rng.pick(FIELDS);
    case 'format':
      return rng.pick(FORMATS);
    case 'page':
    case 'page_size':
    case 'num_results':
    case 'sounds_per_page':
    case 'p':
    case 'group_by_pack':
    case 'normalized':
      return rng.pick(HOSTILE_NUMBERS);
    case 'username':
      return rng.pick(valid.usernames);
    case 'client_id':
      return rng.pick(valid.clientIds);
    case 'next':
      return rng.pick([
        '/apiv2/',
        '//evil.example',
        'https://evil.example/',
        'javascript:alert(1)',
        '/\\evil',
      ]);
    case 'response_type':
      return rng.pick(['code', 'token', '']);
    default:
      return rng.pick([...HOSTILE_TEXT.slice(0, 10), 'drum', 'bass', String(rng.pick(valid.soundIds))]);
  }
}

function combine(rng: Rng, pool: readonly string[], joiner: string): string {
  const parts = [rng.pick(pool)];
  while (rng.chance(0.3)) parts.push(rng.pick(pool));
  return parts.join(joiner);
}

function text(value: string): UrlValue {
  return { raw: percentEncode(value).replace(/%20/g, '+') };
}

/** encodeURIComponent, but a lone surrogate (which it refuses) goes out as its replacement character. */
function percentEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')]
      .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
  }
}

/** A value for a path parameter: a real id most of the time, or one of the hostile ones. */
export function pathValueFor(name: string, rng: Rng, valid: ValidValues): UrlValue {
  if (rng.chance(0.45)) {
    if (name.includes('pack')) return { raw: String(rng.pick(valid.packIds)) };
    if (name.includes('user')) return { raw: rng.pick(valid.usernames) };
    return { raw: String(rng.pick(valid.soundIds)) };
  }
  if (rng.chance(0.15)) return { raw: rng.pick(BROKEN_ENCODINGS) };
  const v = rng.chance(0.6) ? rng.pick(HOSTILE_NUMBERS) : rng.pick(HOSTILE_TEXT);
  return text(v);
}

/** Which `{name}` slots are ids: the only thing a path parameter can be in this API besides a name or file. */
export function isFileSlot(name: string): boolean {
  return name === 'file' || name === 'path' || name === 'rest';
}
