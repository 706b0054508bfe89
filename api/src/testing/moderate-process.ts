/**
 * A second process for the coherence tests, as `npx earshot moderate …` is: opens the embedded
 * catalogue of a data folder that a running server hosts (so it connects as a client), sets one
 * sound's moderation state through the catalogue, closes and exits. Prints "moderated" on stdout.
 *
 * argv: <dataDir> <soundId> <moderationState>
 */
import { type ModerationState, openCatalogue, setModerationState } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';

const [dataDir, soundId, state] = process.argv.slice(2);
const catalogue = await openCatalogue({
  config: { dataDir },
  logger: createLogger('silent'),
  role: 'command',
  description: 'coherence test moderation',
});
if (catalogue.kind !== 'pglite-client')
  throw new Error(`expected to join the server's catalogue, got ${catalogue.kind}`);
await setModerationState(catalogue.db, Number(soundId), state as ModerationState, null);
await catalogue.close();
process.stdout.write('moderated\n');
