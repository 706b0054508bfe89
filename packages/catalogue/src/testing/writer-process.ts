/**
 * A separate process for the multi-process tests: opens the catalogue on a data folder with a
 * role, writes `count` users (each with a pack, in one transaction), exits. With `hold` it stays
 * open after writing until a line arrives on stdin (or stdin closes), so tests decide when it lets go
 * instead of guessing how long child processes take to start on a busy machine.
 * Reports on stdout as JSON lines: {"event":"open","kind":…}, {"event":"written","written":n}, {"event":"done"}.
 *
 * argv: <dataDir> <role> <label> <count> [hold]
 */
import { createLogger } from '@earshot/common';
import type { CatalogueRole } from '../connection/data-folder-lock.ts';
import { openCatalogue } from '../connection/open-catalogue.ts';

const [dataDir, role, label, countText, hold] = process.argv.slice(2);
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
if (hold === 'hold') {
  await new Promise<void>((resolve) => {
    process.stdin.once('data', () => resolve());
    process.stdin.once('end', () => resolve());
  });
}
await catalogue.close();
report({ event: 'done' });
