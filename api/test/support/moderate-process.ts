/**
 * A second process for the coherence tests, as `npx earshot moderate …` is: opens the catalogue
 * the running server uses (the embedded one of its data folder, which the server hosts, so this
 * connects as a client; or the PostgreSQL server at `databaseUrl`), sets one sound's moderation
 * state through the catalogue, closes and exits. Prints "moderated" on stdout.
 *
 * argv: <dataDir> <soundId> <moderationState> [databaseUrl]
 */
import { type ModerationState, openCatalogue } from '@earshot/catalogue';
import { setModerationState } from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';

const [dataDir, soundId, state, databaseUrl] = process.argv.slice(2);
const catalogue = await openCatalogue({
  config: { dataDir, DATABASE_URL: databaseUrl },
  logger: createLogger('silent'),
  role: 'command',
  description: 'coherence test moderation',
});
if (catalogue.kind !== (databaseUrl ? 'postgres' : 'pglite-client'))
  throw new Error(`expected to join the server's catalogue, got ${catalogue.kind}`);
await setModerationState(catalogue.db, Number(soundId), state as ModerationState, null);
await catalogue.close();
process.stdout.write('moderated\n');
