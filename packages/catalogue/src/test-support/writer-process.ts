/**
 * A separate process for the multi-process tests: opens the catalogue on a data folder with a
 * role, writes `count` users (each with a pack, in one transaction), optionally stays open, exits.
 * Reports on stdout as JSON lines: {"event":"open","kind":…} then {"event":"done","written":n}.
 *
 * argv: <dataDir> <role> <label> <count> [holdMs]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '@earshot/common';
import type { CatalogueRole } from '../connection/data-folder-lock.ts';
import { openCatalogue } from '../connection/open-catalogue.ts';

const [dataDir, role, label, countText, holdText] = process.argv.slice(2);
const count = Number(countText);
const report = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

const catalogue = await openCatalogue({
  config: { dataDir },
  logger: createLogger('info', label),
  role: role as CatalogueRole,
  description: `test writer ${label}`,
});
report({ event: 'open', kind: catalogue.kind, pid: process.pid });
for (let i = 0; i < count; i++) {
  await catalogue.db.transaction().execute(async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({ username: `${label}-${i}`, password_hash: null, avatar_path: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('packs')
      .values({ user_id: user.id, name: `pack of ${label}-${i}` })
      .execute();
  });
}
report({ event: 'written', written: count });
if (holdText) await sleep(Number(holdText));
await catalogue.close();
report({ event: 'done' });
