// Values the help texts name, written out here so that a command's definition needs none of the
// packages (`earshot --help` loads no analysis core, no catalogue). choices.test.ts holds them equal
// to the packages' own.

/** The audio types a sound file may have (@earshot/core's ACCEPTED_TYPES). */
export const ACCEPTED_TYPES = ['wav', 'aif', 'aiff', 'ogg', 'mp3', 'm4a', 'flac'] as const;

/** The rate-limit levels of an API credential (@earshot/catalogue's RATE_LIMIT_LEVELS), lowest first. */
export const RATE_LIMIT_LEVEL_NAMES = ['suspended', 'standard', 'elevated', 'high', 'unlimited'] as const;
