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
