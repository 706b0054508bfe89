// The catalogue the API benchmarks load: `sounds` synthetic sounds in the PostgreSQL server
// (database earshot_api_bench_<n>, kept between runs and shared by the benchmarks that need it),
// with a random freesound_classic vector and a small variant-A tree per sound.

import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { buildAppDeps, startServer } from '@earshot/api';
import { openCatalogue } from '@earshot/catalogue';
import { loadSyntheticCatalogue } from '@earshot/catalogue/testing';
import { createLogger, DEFAULT_TEST_DATABASE_URL, loadConfig } from '@earshot/common';
import { createApiCredential } from '@earshot/services';
import { sql } from 'kysely';
import pg from 'pg';

const logger = createLogger('warn');

/**
 * The server the benchmarks use (DATABASE_URL or the test default) and the bench database on it. A
 * benchmark that writes to its catalogue (the soak's uploads) names a database of its own;
 * API_BENCH_DATABASE_PREFIX names another set (several people benchmarking on one server).
 */
export function apiBenchDatabase(
  sounds: number,
  prefix = process.env.API_BENCH_DATABASE_PREFIX ?? 'earshot_api_bench',
): { baseUrl: string; dbName: string; dbUrl: string; dataDir: string } {
  const baseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const dbName = `${prefix}_${sounds}`;
  const u = new URL(baseUrl);
  u.pathname = `/${dbName}`;
  return { baseUrl, dbName, dbUrl: u.toString(), dataDir: apiBenchDataDir(u.toString()) };
}

/**
 * The data folder of the servers on one bench database: one per database, so the similarity
 * snapshot a run leaves (the API writes one every 10 minutes; `earshot index snapshot` with this
 * DATA_DIR writes one at once) is the next run's on the same catalogue, never another size's.
 */
export function apiBenchDataDir(dbUrl: string): string {
  return path.join(os.tmpdir(), 'earshot-api-bench', new URL(dbUrl).pathname.slice(1));
}

/**
 * Creates (or, with `reseed`, rebuilds) and fills the bench database as far as it is not yet, and
 * returns a new API key of the unlimited level (a load generator is not a client the limits are for).
 */
export async function ensureApiBenchCatalogue(
  sounds: number,
  reseed: boolean,
  prefix?: string,
): Promise<string> {
  const { baseUrl, dbName, dbUrl } = apiBenchDatabase(sounds, prefix);
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [dbName])).rowCount === 1;
  if (exists && reseed) await admin.query(`drop database ${dbName} with (force)`);
  if (!exists || reseed) await admin.query(`create database ${dbName}`);
  await admin.end();
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: apiBenchDataDir(dbUrl) });
  const catalogue = await openCatalogue({ config, logger, role: 'command' });
  const db = catalogue.db;
  try {
    const count = async (table: 'sounds' | 'sound_similarity_vectors' | 'sound_descriptors') =>
      (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db)).rows[0].n;
    const started = Date.now();
    let changed = false;
    if ((await count('sounds')) < sounds) {
      changed = true;
      await loadSyntheticCatalogue(db, {
        sounds,
        progress: (n) => process.stdout.write(`\r  seeding sounds ${n}/${sounds}`),
      });
      process.stdout.write('\n');
    }
    if ((await count('sound_similarity_vectors')) < sounds) {
      changed = true;
      process.stdout.write('  seeding similarity vectors…\n');
      // Server-side generation: a random 100-d vector per sound.
      await sql`insert into sound_similarity_vectors (sound_id, space, vector)
        select s.id, 'freesound_classic', (select array_agg(random()::real) from generate_series(1, 100) g where s.id > 0)
        from sounds s on conflict do nothing`.execute(db);
    }
    if ((await count('sound_descriptors')) < sounds) {
      changed = true;
      process.stdout.write('  seeding descriptors…\n');
      await sql`insert into sound_descriptors (sound_id, spectral_centroid, pitch, analysis_a, analysis_b)
        select x.id, x.c, x.p,
          jsonb_build_object('lowlevel', jsonb_build_object('spectral_centroid', jsonb_build_object('mean', x.c),
            'pitch', jsonb_build_object('mean', x.p))),
          jsonb_build_object('spectral_centroid', x.c, 'pitch', x.p)
        from (select id, random() * 8000 as c, random() * 1000 as p from sounds) x
        on conflict do nothing`.execute(db);
      await sql`analyze`.execute(db);
    }
    const treeless = await sql<{
      n: number;
    }>`select count(*)::int as n from sound_descriptors where analysis_a = '{}'::jsonb`.execute(db);
    if (treeless.rows[0].n > 0) {
      changed = true;
      // Content search reads the variant-A tree; build a small one from the typed columns.
      process.stdout.write(`  writing ${treeless.rows[0].n} analysis trees…\n`);
      await sql`update sound_descriptors set
          spectral_centroid = coalesce(spectral_centroid, random() * 8000),
          pitch = coalesce(pitch, random() * 1000)
        where analysis_a = '{}'::jsonb`.execute(db);
      await sql`update sound_descriptors set analysis_a = jsonb_build_object('lowlevel', jsonb_build_object(
          'spectral_centroid', jsonb_build_object('mean', spectral_centroid),
          'pitch', jsonb_build_object('mean', pitch)))
        where analysis_a = '{}'::jsonb`.execute(db);
    }
    // The synthetic loader writes explicit ids; move the identity sequences past them.
    for (const table of ['users', 'api_credentials']) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), greatest(1, (select coalesce(max(id), 0) from ${sql.table(table)})))`.execute(
        db,
      );
    }
    // As a maintained database would be: the server may run without autovacuum (this one does),
    // and a freshly written table has no visibility map (every index-only probe visits the heap,
    // through the dead versions the tree updates left) and stale statistics.
    if (changed) {
      process.stdout.write('  vacuum analyze…\n');
      await sql`vacuum analyze`.execute(db);
    }
    process.stdout.write(`  catalogue ready in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    const credential = await createApiCredential(db, {
      username: 'bench',
      name: 'bench',
      redirectUri: 'http://x/',
      level: 'unlimited', // a load generator is not a client the standard limits are for
    });
    return credential.client_secret;
  } finally {
    await catalogue.close();
  }
}

/**
 * The API server of a benchmark's child process, on the bench catalogue: prints its origin as a
 * JSON line on stdout for the parent, which reads it to aim its load. `clipThreads`,
 * `clipNiceness`: the audio_file analysis threads and their priority below the event loop (default:
 * the server's own defaults).
 */
export async function runApiBenchServer(
  dbUrl: string,
  dataDir: string,
  options: { clipThreads?: number; clipNiceness?: number } = {},
): Promise<void> {
  const config = loadConfig({ PORT: '0', DATABASE_URL: dbUrl, LOG_LEVEL: 'warn', DATA_DIR: dataDir });
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  const deps = await buildAppDeps({
    config,
    logger: createLogger('silent'),
    catalogue,
    similarityRefreshMs: 0,
    clipThreads: options.clipThreads,
    clipNiceness: options.clipNiceness,
  });
  const server = await startServer(deps);
  process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
}

/**
 * Waits until the API answers text searches from its posting index (/ready's `text_search`): it
 * serves from PostgreSQL while the index builds, and the rows measure the served design.
 */
export async function searchIndexBuilt(origin: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    const ready = (await (await fetch(`${origin}/ready`)).json()) as { text_search?: string };
    if (ready.text_search === undefined || ready.text_search === 'index') break;
    process.stdout.write(`\r  search index building… ${Math.round((performance.now() - started) / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  console.log(`  search index ready after ${Math.round((performance.now() - started) / 100) / 10} s`);
}

/**
 * A bench's API process: `benchFile` run again with `--role api-server` (each bench wires that role to
 * its own server), which prints `{"origin": …}` as its first line once it listens.
 */
export function spawnApiBenchServer(
  benchFile: string,
  sounds: number,
): { origin: Promise<string>; stop: () => void } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', benchFile, '--role', 'api-server', '--sounds', String(sounds)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const origin = new Promise<string>((resolve, reject) => {
    readline
      .createInterface({ input: child.stdout })
      .once('line', (line) => resolve((JSON.parse(line) as { origin: string }).origin));
    child.once('exit', (code) => reject(new Error(`the API process exited with ${code}`)));
  });
  return { origin, stop: () => child.kill('SIGTERM') };
}
