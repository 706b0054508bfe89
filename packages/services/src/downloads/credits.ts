import { creditLine, LICENSE_DEEDS, type LicenseName } from '@earshot/catalogue';

/** The web page of a sound: what the API's `url` field shows and what a credit line links to. */
export function soundPageUrl(origin: string, username: string, id: number): string {
  return `${origin}/people/${encodeURIComponent(username)}/sounds/${id}/`;
}

/** What a credits file says of one sound (JSON: these keys, snake_case as the API's). */
export interface SoundCredit {
  id: number;
  name: string;
  username: string;
  url: string;
  license: LicenseName;
  license_url: string;
  attribution: string;
}

/** The credit of one sound: its page, its licence's deed and its credit line. */
export function soundCredit(
  origin: string,
  sound: { id: number; name: string; username: string; license: LicenseName },
): SoundCredit {
  const url = soundPageUrl(origin, sound.username, sound.id);
  return {
    id: sound.id,
    name: sound.name,
    username: sound.username,
    url,
    license: sound.license,
    license_url: LICENSE_DEEDS[sound.license],
    attribution: creditLine({ ...sound, url }),
  };
}

/** The machine-readable credits file of a selection of sounds (a pack's zip carries one). */
export const CREDITS_JSON_NAME = '_credits.json';

export function creditsJson(title: string, credits: readonly SoundCredit[]): string {
  return `${JSON.stringify({ title, sounds: credits }, null, 2)}\n`;
}

/** The text credits file of a selection: a heading, then one credit line a sound, then what was not found. */
export function creditsText(
  title: string,
  credits: readonly SoundCredit[],
  missing: readonly number[] = [],
): string {
  const lines = [
    `Credits: ${title}`,
    '',
    'Each sound is shared under the licence named in its line. Attribution and Attribution NonCommercial',
    'ask you to credit the author as the line does (the second forbids commercial use); Creative Commons 0',
    'asks nothing.',
    '',
    ...credits.map((c) => c.attribution),
  ];
  if (missing.length > 0) lines.push('', `Not public sounds here (no credit given): ${missing.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
