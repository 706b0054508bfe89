/**
 * The licences a sound can have: the names the `license` column takes (its CHECK) and the API
 * shows, each with the Creative Commons deed that attribution lines and pack readmes link to.
 */
export const LICENSE_DEEDS = {
  Attribution: 'https://creativecommons.org/licenses/by/4.0/',
  'Attribution NonCommercial': 'https://creativecommons.org/licenses/by-nc/4.0/',
  'Creative Commons 0': 'https://creativecommons.org/publicdomain/zero/1.0/',
} as const satisfies Record<string, string>;

export type LicenseName = keyof typeof LICENSE_DEEDS;
export const LICENSES = Object.keys(LICENSE_DEEDS) as readonly LicenseName[];

/** `'Attribution', 'Attribution NonCommercial' or 'Creative Commons 0'`, for messages and documentation. */
export const LICENSE_CHOICES = LICENSES.map((l) => `'${l}'`)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/**
 * How each licence's deed asks to be credited: its own short name and, for the public-domain
 * dedication, its own verb (CC0 asks for nothing, but a credit line that says so helps the next
 * reader).
 */
const LICENSE_CREDITS: Record<LicenseName, { verb: string; short: string }> = {
  Attribution: { verb: 'is licensed under', short: 'CC BY 4.0' },
  'Attribution NonCommercial': { verb: 'is licensed under', short: 'CC BY-NC 4.0' },
  'Creative Commons 0': { verb: 'is dedicated to the public domain under', short: 'CC0 1.0' },
};

/** What a credit line names: the work, its author, where it is, and its licence. */
export interface CreditedSound {
  name: string;
  username: string;
  /** The sound's page. */
  url: string;
  license: LicenseName;
}

/**
 * A sound's credit line in the form the Creative Commons deeds ask for (title, author, source,
 * licence, each with its link): `"Rain" by alice (https://…/people/alice/sounds/7/) is licensed
 * under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)`.
 */
export function creditLine(sound: CreditedSound): string {
  const credit = LICENSE_CREDITS[sound.license];
  return `"${sound.name}" by ${sound.username} (${sound.url}) ${credit.verb} ${credit.short} (${LICENSE_DEEDS[sound.license]})`;
}
