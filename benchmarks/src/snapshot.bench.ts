// Similarity snapshots (issue 18): time from a fresh process's start of the similarity state to
// its first similar-sounds answer, starting from a snapshot vs rebuilding from the catalogue, and
// that process's RSS. `npx earshot bench snapshot [--sizes 100000,1000000] [--rounds 3]
// [--no-rebuild] [--keep DIR]`: at 1M a rebuild takes tens of CPU-minutes per round, and writing the
// snapshot does too, so `--keep` writes it once into DIR/<size> and later runs reuse it (run the
// writing pass niced, the measured rounds on a quiet machine).
// Catalogue: database earshot_snapshot_bench_<n> on the PostgreSQL server (kept between runs),
// synthetic sounds with a random 100-d freesound_classic vector each.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogue } from '@earshot/catalogue';
import { loadSyntheticCatalogue } from '@earshot/catalogue/testing';
import { createLogger, DEFAULT_TEST_DATABASE_URL, loadConfig } from '@earshot/common';
import { SimilarityState } from '@earshot/services';
import { sql } from 'kysely';
import pg from 'pg';
import { arg } from './args.ts';

const here = fileURLToPath(import.meta.url);
const resultsFile = path.join(path.dirname(here), '..', 'results', 'snapshot.md');
const SPACE = 'freesound_classic';

function databaseOf(sounds: number): { baseUrl: string; dbName: string; dbUrl: string } {
  const baseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const dbName = `earshot_snapshot_bench_${sounds}`;
  const u = new URL(baseUrl);
  u.pathname = `/${dbName}`;
  return { baseUrl, dbName, dbUrl: u.toString() };
}

async function ensureCatalogue(sounds: number): Promise<string> {
  const { baseUrl, dbName, dbUrl } = databaseOf(sounds);
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [dbName])).rowCount === 1;
  if (!exists) await admin.query(`create database ${dbName}`);
  await admin.end();
  const logger = createLogger('warn');
  const catalogue = await openCatalogue({
    config: loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: path.join(os.tmpdir(), 'earshot-snapshot-bench') }),
    logger,
    role: 'command',
  });
  const db = catalogue.db;
  const count = async (table: 'sounds' | 'sound_similarity_vectors') =>
    (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db)).rows[0].n;
  if ((await count('sounds')) < sounds) {
    await loadSyntheticCatalogue(db, {
      sounds,
      progress: (n) => process.stdout.write(`\r  seeding sounds ${n}/${sounds}`),
    });
    process.stdout.write('\n');
  }
  if ((await count('sound_similarity_vectors')) < sounds) {
    process.stdout.write('  seeding similarity vectors…\n');
    await sql`insert into sound_similarity_vectors (sound_id, space, vector)
      select s.id, ${SPACE}, (select array_agg(random()::real) from generate_series(1, 100) g where s.id > 0)
      from sounds s on conflict do nothing`.execute(db);
  }
  await catalogue.close();
  return dbUrl;
}

// ---------- child: one start, measured ----------

interface StartResult {
  readyMs: number;
  firstAnswerMs: number;
  rssMb: number;
  size: number;
}

async function child(mode: 'rebuild' | 'snapshot' | 'write', dbUrl: string, dir: string): Promise<void> {
  const started = performance.now();
  const logger = createLogger('warn');
  const catalogue = await openCatalogue({
    config: loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: dir }),
    logger,
    role: 'command',
  });
  const state = new SimilarityState(catalogue.db, logger, {
    snapshotDir: mode === 'rebuild' ? undefined : path.join(dir, 'similarity'),
  });
  const loading = state.refresh();
  while (!state.isReady()) await new Promise((r) => setTimeout(r, 20));
  const readyMs = performance.now() - started;
  const index = state.indexes.get(SPACE);
  if (!index) throw new Error('no index');
  const target = index.ids()[0];
  index.nearestToSound(target, { k: 15 });
  const firstAnswerMs = performance.now() - started;
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  await loading;
  if (mode === 'write' && !(await state.writeSnapshots())) throw new Error('snapshot lock held elsewhere');
  const result: StartResult = { readyMs, firstAnswerMs, rssMb, size: index.size };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await state.close();
  await catalogue.close();
}

function runChild(mode: string, dbUrl: string, dir: string): Promise<StartResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', here, '--child', mode, dbUrl, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    proc.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code === 0 && line) resolve(JSON.parse(line.slice(7)) as StartResult);
      else reject(new Error(`child ${mode} exited ${code}: ${out}`));
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const sizes = arg('sizes', '100000').split(',').map(Number);
  const rounds = Number(arg('rounds', '3'));
  const modes = process.argv.includes('--no-rebuild')
    ? (['snapshot'] as const)
    : (['snapshot', 'rebuild'] as const);
  const keep = arg('keep', '');
  const rows: string[] = [];
  for (const sounds of sizes) {
    const dbUrl = await ensureCatalogue(sounds);
    const dir = keep
      ? path.resolve(keep, String(sounds))
      : fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-snapshot-bench-'));
    const snapshotFiles = path.join(dir, 'similarity', SPACE);
    try {
      let writeS = Number.NaN;
      if (keep && fs.existsSync(snapshotFiles) && fs.readdirSync(snapshotFiles).length > 0) {
        process.stdout.write(`${sounds} sounds: using the snapshot kept in ${dir}\n`);
      } else {
        fs.mkdirSync(dir, { recursive: true });
        process.stdout.write(`${sounds} sounds: writing the snapshot (a full load, then the files)…\n`);
        const writeStarted = performance.now();
        // The 1M build is silent for many minutes: say that it is alive.
        const beat = setInterval(
          () => process.stdout.write(`  … ${((performance.now() - writeStarted) / 1000).toFixed(0)} s\n`),
          30_000,
        );
        await runChild('write', dbUrl, dir).finally(() => clearInterval(beat));
        writeS = (performance.now() - writeStarted) / 1000;
      }
      const bytes = fs
        .readdirSync(snapshotFiles)
        .reduce((sum, f) => sum + fs.statSync(path.join(snapshotFiles, f)).size, 0);
      if (rounds === 0) continue;
      const results: Record<string, StartResult[]> = { snapshot: [], rebuild: [] };
      for (let round = 0; round < rounds; round++) {
        for (const mode of modes) {
          const r = await runChild(mode, dbUrl, dir);
          results[mode].push(r);
          process.stdout.write(
            `  round ${round + 1} ${mode}: first answer ${(r.firstAnswerMs / 1000).toFixed(2)} s, rss ${r.rssMb.toFixed(0)} MB (${r.size} sounds)\n`,
          );
        }
      }
      const snap = results.snapshot;
      const rebuilt = results.rebuild;
      const snapS = median(snap.map((r) => r.firstAnswerMs)) / 1000;
      const rebuildS = rebuilt.length ? median(rebuilt.map((r) => r.firstAnswerMs)) / 1000 : Number.NaN;
      const or = (x: number, text: () => string) => (Number.isNaN(x) ? 'not run' : text());
      rows.push(
        `| ${sounds.toLocaleString('en')} | ${snapS.toFixed(2)} s | ${median(snap.map((r) => r.rssMb)).toFixed(0)} MB | ${or(rebuildS, () => `${rebuildS.toFixed(2)} s`)} | ${or(rebuildS, () => `${median(rebuilt.map((r) => r.rssMb)).toFixed(0)} MB`)} | ${or(rebuildS, () => `${(rebuildS / snapS).toFixed(1)}×`)} | ${or(writeS, () => `${writeS.toFixed(1)} s`)}, ${(bytes / 2 ** 20).toFixed(0)} MB |`,
      );
    } finally {
      if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const table = [
    '| vectors | snapshot: start → first similar answer | snapshot: RSS | rebuild: start → first answer | rebuild: RSS | rebuild / snapshot | writing the snapshot (incl. a full load), size |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  if (rows.length === 0) return;
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  process.stdout.write(
    `\n${table}\n\nmedians of ${rounds} rounds; load average ${load}; ${os.cpus().length} cores\n`,
  );
  fs.appendFileSync(
    resultsFile,
    `\n## ${new Date().toISOString().slice(0, 16)}Z — ${rounds} rounds, load average ${load}\n\n${table}\n`,
  );
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] as 'rebuild' | 'snapshot' | 'write', process.argv[4], process.argv[5]);
} else {
  await main();
}
