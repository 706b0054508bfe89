// What a cursor walk costs the catalogue (docs/api.md "Cursor paging"): freezing a result of n
// sounds (`startListWalk`, with and without per-hit details such as scores) and reading one page of
// it (`readListWalk`) at random positions, on the PostgreSQL server, beside the floor measured in the
// same run: the ids' 4 bytes each written as one bytea value (one row, one parameter: the least
// the database can be sent and store for them).
//   npx earshot bench list-walks [--sizes 100000,1000000] [--reads 200]
// Runs in a database of its own, created and dropped by the run; writes nothing else.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIST_WALK_CHUNK, openCatalogue, readListWalk, startListWalk } from '@earshot/catalogue';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { sql } from 'kysely';
import { arg } from './args.ts';

const sizes = arg('sizes', '100000,1000000').split(',').map(Number);
const reads = Number(arg('reads', '200'));
const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const resultsFile = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results', 'list-walks.md');
const LIMITS = { idleSeconds: 3600, maxStoredIds: 50_000_000 };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (from: number) => performance.now() - from;

const database = await createTestDatabase(baseUrl);
const catalogue = await openCatalogue({
  config: loadConfig({ DATABASE_URL: database.url, DATA_DIR: os.tmpdir() }),
  logger: createLogger('warn'),
  role: 'command',
});
const db = catalogue.db;
const rows: string[] = [];
try {
  await sql`create table floor_ids (ids bytea)`.execute(db);
  for (const n of sizes) {
    const ids = Array.from({ length: n }, (_, i) => n - i);
    const details = ids.map((id) => ({ score: id / 3 }));
    process.stdout.write(`  ${n} sounds: floor`);
    let t = performance.now();
    await sql`insert into floor_ids values (${Buffer.from(new Int32Array(ids).buffer)})`.execute(db);
    const floor = ms(t);
    await sql`truncate floor_ids`.execute(db);
    process.stdout.write(', freeze ids');
    t = performance.now();
    const plain = await startListWalk(db, 'bench:plain', { ids }, LIMITS);
    const freeze = ms(t);
    process.stdout.write(', freeze ids and scores');
    t = performance.now();
    const scored = await startListWalk(db, 'bench:scored', { ids, details }, LIMITS);
    const freezeScored = ms(t);
    const size = await sql<{ plain: string; scored: string }>`select
      pg_size_pretty(sum(pg_column_size(c.*)) filter (where walk_id = ${plain}::bigint)) as plain,
      pg_size_pretty(sum(pg_column_size(c.*)) filter (where walk_id = ${scored}::bigint)) as scored
      from list_walk_chunks c`.execute(db);
    process.stdout.write(', reads\n');
    const pageTimes: number[] = [];
    const scoredTimes: number[] = [];
    for (let i = 0; i < reads; i++) {
      const offset = Math.floor(Math.random() * (n - 150));
      t = performance.now();
      await readListWalk(db, plain, 'bench:plain', { offset, limit: 150 }, LIMITS);
      pageTimes.push(ms(t));
      t = performance.now();
      await readListWalk(db, scored, 'bench:scored', { offset, limit: 150 }, LIMITS);
      scoredTimes.push(ms(t));
    }
    rows.push(
      `| ${n} | ${floor.toFixed(0)} | ${freeze.toFixed(0)} (${(freeze / floor).toFixed(1)}×) | ${freezeScored.toFixed(0)} | ${size.rows[0].plain} / ${size.rows[0].scored} | ${median(pageTimes).toFixed(2)} | ${median(scoredTimes).toFixed(2)} |`,
    );
    await sql`delete from list_walks`.execute(db);
  }
  const text = [
    '# List walks benchmark',
    '',
    `\`npx earshot bench list-walks --sizes ${sizes.join(',')} --reads ${reads}\``,
    '',
    `Run ${new Date().toISOString()}: PostgreSQL server, ${LIST_WALK_CHUNK} ids a chunk, ${reads} page reads (150) at random positions; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} (shared machine).`,
    '',
    '| sounds | floor: n × 4 bytes as one bytea, ms | freeze ids, ms (× floor) | freeze ids + scores, ms | stored (ids / + scores) | page read p50, ms | page read + scores p50, ms |',
    '|---:|---:|---:|---:|---|---:|---:|',
    ...rows,
    '',
  ].join('\n');
  console.log(`\n${text}`);
  fs.writeFileSync(resultsFile, text);
} finally {
  await catalogue.close();
  await database.drop();
}
