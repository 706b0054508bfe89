import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The project's version, from the root package.json. */
export const VERSION: string = pkg.version;
