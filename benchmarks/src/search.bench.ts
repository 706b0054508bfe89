// Search benchmark (issue 6): seeds a synthetic catalogue (Zipf words and tags, packs, users,
// geotags, descriptors) at each size into the PostgreSQL server (database earshot_bench_<n>,
// reused between runs) and into PGlite (a data folder under the OS temp dir, reused), then times
// the query set through the engine and as bare SQL (the floor), side by side.
//   npx earshot bench search [--sizes 100000,1000000] [--pglite-sizes 100000] [--reps 100] [--reseed]
//                            [--only <text in query names>] [--out <results file>]
// The bare SQL of each query is the statement(s) of the plan the engine picks, written by hand,
// over the same side structures. Every search table is vacuumed and analyzed before timing (what
// autovacuum does in production), which also settles tables a newer migration added.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Catalogue,
  DEFAULT_POPULARITY_CAP_ABOVE,
  openCatalogue,
  SEARCH_SIDE_TABLES,
  type SearchRequest,
  searchSounds,
} from '@earshot/catalogue';
import { loadSyntheticCatalogue, syntheticVocabulary } from '@earshot/catalogue/testing';
import { createLogger, DEFAULT_TEST_DATABASE_URL } from '@earshot/common';
import { sql } from 'kysely';
import pg from 'pg';
import { arg } from './args.ts';

const sizes = arg('sizes', '100000,1000000').split(',').filter(Boolean).map(Number);
const pgliteSizes = arg('pglite-sizes', '100000').split(',').filter(Boolean).map(Number);
const reps = Number(arg('reps', '100'));
const reseed = process.argv.includes('--reseed');
const only = arg('only', '');
const baseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.resolve(arg('out', path.join(here, '..', 'results', 'search.md')));
const logger = createLogger('warn');
const SEARCH_TABLES = ['sound_search', 'sound_descriptors', ...SEARCH_SIDE_TABLES];
/** The very common word of the query set, and the lexeme it indexes as. */
const COMMON_WORD = 'voice';
const COMMON_LEXEME = 'voic';

interface BenchQuery {
  name: string;
  request: SearchRequest;
  /** The same result written by hand: the page statement and the count statement. */
  bare: [string, string];
  /** The bare SQL when the common word matches too few sounds for the popularity cap (exact plan). */
  bareUncapped?: [string, string];
  /**
   * Search as a process that has not searched this word before (the engine remembers what it
   * learnt of a word: the first search of a common one ranks up to 500 matches before its df row
   * decides the plan). Info only.
   */
  firstInProcess?: boolean;
}

/** A duration-range count from the histogram: inner buckets summed, the two edge buckets counted by the index. */
function durationCount(lo: number, hi: number): string {
  const edge = (
    k: string,
  ) => `(select count(*) from sound_search s where s.duration >= search_duration_bucket_start(${k})
      and s.duration <= search_duration_bucket_end(${k}) and search_duration_bucket(s.duration) = ${k}
      and s.duration >= ${lo} and s.duration <= ${hi})`;
  const [klo, khi] = [`search_duration_bucket(${lo}::float8)`, `search_duration_bucket(${hi}::float8)`];
  return `select coalesce((select sum(n) from search_duration_hist where bucket > ${klo} and bucket < ${khi}), 0)
    + ${edge(klo)} + (case when ${khi} <> ${klo} then ${edge(khi)} else 0 end)`;
}

function querySet(geo: { lat: number; lon: number }): BenchQuery[] {
  const vocab = syntheticVocabulary(50_000, 42);
  const rare = vocab[30_000];
  const common = COMMON_WORD;
  const topTag = syntheticVocabulary(20_000, 49)[0];
  const rank = `ts_rank('{0.25,0.5,0.75,1}', tsv, q)`;
  // Page and exact count from one scan: the cheapest hand-written form of a relevance-ordered page.
  const ranked = (tsq: string): [string, string] => [
    `with m as materialized (select id, ${rank} as score from sound_search, ${tsq} q where tsv @@ q)
     select id, score, (select count(*) from m) from m order by score desc, id limit 15`,
    'select 1',
  ];
  // Very common one-word queries: rank the 1000 most-downloaded matches; exact count from the df table.
  const commonLexeme = COMMON_LEXEME;
  const capped = (tsq: string, lexeme: string): [string, string] => [
    `with c as materialized (select id, ${rank} as score from sound_search, ${tsq} q where tsv @@ q
       order by num_downloads desc limit 1000)
     select id, score from c order by score desc, id limit 15`,
    `select ndoc from search_term_df where lexeme = '${lexeme}'`,
  ];
  const plain = (where: string, order = 'id'): [string, string] => [
    `select id from sound_search s where ${where} order by ${order} limit 15`,
    `select count(*) from sound_search s where ${where}`,
  ];
  const km = 100;
  const dLat = (km / 6371.0088) * (180 / Math.PI);
  const dLon = dLat / Math.cos((geo.lat * Math.PI) / 180);
  const hav = `2 * 6371.0087714 * asin(least(1, sqrt(power(sin(radians(s.lat - ${geo.lat}) / 2), 2) + cos(radians(${geo.lat})) * cos(radians(s.lat)) * power(sin(radians(s.lon - ${geo.lon}) / 2), 2))))`;
  return [
    {
      name: `rare term (${rare})`,
      request: { query: rare },
      bare: ranked(`plainto_tsquery('english', '${rare}')`),
    },
    {
      name: `rare term (${rare}), first search in a process (info)`,
      request: { query: rare },
      bare: ranked(`plainto_tsquery('english', '${rare}')`),
      firstInProcess: true,
    },
    {
      name: `common term (${common})`,
      request: { query: common },
      bare: capped(`plainto_tsquery('english', '${common}')`, commonLexeme),
      bareUncapped: ranked(`plainto_tsquery('english', '${common}')`),
    },
    {
      name: `common term (${common}), first search in a process (info)`,
      request: { query: common },
      bare: capped(`plainto_tsquery('english', '${common}')`, commonLexeme),
      bareUncapped: ranked(`plainto_tsquery('english', '${common}')`),
      firstInProcess: true,
    },
    {
      name: 'phrase ("door creak")',
      request: { query: '"door creak"' },
      // The phrase-pair index finds the candidates; the tsvector phrase check decides.
      bare: [
        `with m as materialized (select s.id, ${rank} as score from sound_search s, phraseto_tsquery('english', 'door creak') q
           where s.id in (select sound_id from search_phrase where grams @> search_phrase_grams(to_tsvector('english', 'door creak')))
             and tsv @@ q)
         select id, score, (select count(*) from m) from m order by score desc, id limit 15`,
        'select 1',
      ],
    },
    {
      name: `filter only (tag:${topTag} duration:[0 TO 5])`,
      request: { filter: `tag:${topTag} duration:[0 TO 5]` },
      bare: [
        plain(`s.tags @> array['${topTag}'] and s.duration between 0 and 5`)[0],
        `select count(*) from search_tag where tag = '${topTag}' and duration >= 0 and duration <= 5`,
      ],
    },
    {
      name: 'range + sort (duration:[2 TO 4], downloads_desc)',
      request: { filter: 'duration:[2 TO 4]', sort: 'downloads_desc' },
      bare: [plain('s.duration between 2 and 4', 's.num_downloads desc, s.id')[0], durationCount(2, 4)],
    },
    {
      name: 'descriptor range (bpm:[110 TO 130])',
      request: { filter: 'bpm:[110 TO 130]' },
      bare: [
        plain(
          'exists (select 1 from sound_descriptors d where d.sound_id = s.id and d.bpm between 110 and 130)',
        )[0],
        `select (select count(*) from sound_descriptors where bpm between 110 and 130)
          - (select count(*) from search_hidden_descriptors h join sound_descriptors d using (sound_id) where d.bpm between 110 and 130)`,
      ],
    },
    {
      name: `group_by_pack (${common})`,
      request: { query: common, groupByPack: '1' },
      bare: [
        `with c as materialized (select id, pack_id, ${rank} as score from sound_search, plainto_tsquery('english', '${common}') q
           where tsv @@ q order by num_downloads desc limit 1000),
         r as (select c.*, row_number() over (partition by coalesce(pack_id, -id) order by score desc, id) rn from c)
         select r.id, r.score, r.pack_id, p.n from r left join search_term_pack p on p.lexeme = '${commonLexeme}' and p.pack_id = r.pack_id
         where rn = 1 order by score desc, id limit 15`,
        `select ndoc_unpacked + npacks from search_term_df where lexeme = '${commonLexeme}'`,
      ],
      bareUncapped: [
        `with m as materialized (select id, pack_id, ${rank} as score from sound_search, plainto_tsquery('english', '${common}') q
           where tsv @@ q),
         r as (select m.*, row_number() over (partition by coalesce(pack_id, -id) order by score desc, id) rn,
           count(*) over (partition by coalesce(pack_id, -id)) in_pack from m),
         g as materialized (select * from r where rn = 1)
         select id, score, pack_id, in_pack, (select count(*) from g) from g order by score desc, id limit 15`,
        'select 1',
      ],
    },
    {
      // One descriptor: the nearest values from its index, walked both ways from the target.
      name: 'sort by target values (bpm:120, every sound)',
      request: { sort: 'bpm:120' },
      bare: [
        `select id, abs(diff) from (
           (select d.sound_id as id, d.bpm - 120 as diff from sound_descriptors d
             where d.bpm >= 120 and exists (select 1 from sound_search s where s.id = d.sound_id)
             order by d.bpm, d.sound_id limit 15)
           union all
           (select d.sound_id, d.bpm - 120 from sound_descriptors d
             where d.bpm < 120 and exists (select 1 from sound_search s where s.id = d.sound_id)
             order by d.bpm desc, d.sound_id limit 15)) v
         order by abs(diff), id limit 15`,
        'select count(*) from sound_search',
      ],
    },
    {
      // Two descriptors: every sound's distance, then the top 15.
      name: 'sort by target values (bpm:120,loudness:-20, every sound)',
      request: { sort: 'bpm:120,loudness:-20' },
      bare: [
        `select s.id from sound_search s left join sound_descriptors d on d.sound_id = s.id
         order by sqrt(power(d.bpm - 120, 2) + power(d.loudness + 20, 2)) asc nulls last, s.id limit 15`,
        'select count(*) from sound_search',
      ],
    },
    {
      name: `sort by target values (${common}, bpm:120,loudness:-20)`,
      request: { query: common, sort: 'bpm:120,loudness:-20' },
      bare: [
        `select m.id, ${rank} as score from (
           select s.id from sound_search s left join sound_descriptors d on d.sound_id = s.id,
             plainto_tsquery('english', '${common}') q
           where s.tsv @@ q
           order by sqrt(power(d.bpm - 120, 2) + power(d.loudness + 20, 2)) asc nulls last, s.id limit 15) m
         join sound_search s on s.id = m.id, plainto_tsquery('english', '${common}') q`,
        `select ndoc from search_term_df where lexeme = '${commonLexeme}'`,
      ],
    },
    {
      name: `geotag ({!geofilt d=${km}})`,
      request: { filter: `{!geofilt sfield=geotag pt=${geo.lat},${geo.lon} d=${km}}` },
      bare: plain(
        `s.lat between ${geo.lat - dLat} and ${geo.lat + dLat} and s.lon between ${geo.lon - dLon} and ${geo.lon + dLon} and ${hav} <= ${km}`,
      ),
    },
  ];
}

// ---------- catalogues ----------

async function serverCatalogue(size: number): Promise<Catalogue> {
  const name = `earshot_bench_${size}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount;
  if (exists && reseed) await admin.query(`drop database ${name} with (force)`);
  if (!exists || reseed) await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return openCatalogue({ config: { DATABASE_URL: url.toString(), dataDir: os.tmpdir() }, logger });
}

async function pgliteCatalogue(size: number): Promise<Catalogue> {
  const dataDir = path.join(os.tmpdir(), 'earshot-bench', `search-pglite-${size}`);
  if (reseed) fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  return openCatalogue({
    config: { dataDir },
    logger,
    role: 'command',
    description: 'search benchmark',
    // The synthetic loader rebuilds the search document of every sound in one statement.
    answerMs: 3_600_000,
  });
}

async function ensureSeeded(catalogue: Catalogue, size: number, label: string): Promise<void> {
  const have = await sql<{ n: number }>`select count(*)::int as n from sound_search`.execute(catalogue.db);
  if (have.rows[0].n === size) return;
  if (have.rows[0].n !== 0)
    throw new Error(`${label} holds ${have.rows[0].n} sounds, not ${size}: rerun with --reseed`);
  const t0 = Date.now();
  await loadSyntheticCatalogue(catalogue.db, {
    sounds: size,
    progress: (n) =>
      process.stderr.write(`\r  seeding ${label}: ${n.toLocaleString()} / ${size.toLocaleString()} sounds`),
  });
  process.stderr.write(
    `\r  seeded ${label}: ${size.toLocaleString()} sounds in ${((Date.now() - t0) / 1000).toFixed(0)} s (incl. indexing)\n`,
  );
}

/**
 * What autovacuum does in production between writes and reads: visibility maps (index-only
 * counts) and statistics for every table the plans read, including side tables that a migration
 * added after the seeding. Cheap when nothing changed.
 */
async function settle(catalogue: Catalogue): Promise<void> {
  for (const table of SEARCH_TABLES) await sql`vacuum (analyze) ${sql.table(table)}`.execute(catalogue.db);
}

// ---------- timing ----------

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

interface Row {
  backend: string;
  size: number;
  query: string;
  count: number;
  engine: number[];
  bare: number[];
}

async function timeSet(catalogue: Catalogue, backend: string, size: number): Promise<Row[]> {
  const db = catalogue.db;
  const g = await sql<{
    lat: number;
    lon: number;
  }>`select lat, lon from sound_search where lat is not null order by id limit 1`.execute(db);
  // Below the popularity cap the engine ranks every match of the common word: so must the floor.
  const df = await sql<{
    n: number;
  }>`select ndoc as n from search_term_df where lexeme = ${COMMON_LEXEME}`.execute(db);
  const uncapped = (df.rows[0]?.n ?? 0) <= DEFAULT_POPULARITY_CAP_ABOVE;
  const queries = querySet(g.rows[0])
    .filter((q) => q.name.includes(only))
    .map((q) => (uncapped && q.bareUncapped ? { ...q, bare: q.bareUncapped } : q));
  const rows: Row[] = [];
  for (const q of queries) {
    const r = await searchSounds(catalogue, { ...q.request, limit: 15 });
    rows.push({ backend, size, query: q.name, count: r.count, engine: [], bare: [] });
  }
  const bare = (q: BenchQuery) => Promise.all(q.bare.map((s) => sql.raw(s).execute(db)));
  // A query builder of its own is a catalogue the engine has not searched before.
  const engine = (q: BenchQuery) =>
    searchSounds(q.firstInProcess ? { db: db.withoutPlugins() } : catalogue, { ...q.request, limit: 15 });
  for (let w = 0; w < 3; w++)
    for (const q of queries) await Promise.all([engine(q), bare(q)].map((p) => p.then(() => {})));
  const total = reps * queries.length * 2;
  let done = 0;
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, q] of queries.entries()) {
      // Alternate which goes first so neither always benefits from the other's warm cache.
      const order = rep % 2 ? (['engine', 'bare'] as const) : (['bare', 'engine'] as const);
      for (const which of order) {
        const t0 = performance.now();
        if (which === 'engine') await engine(q);
        else await bare(q);
        rows[i][which].push(performance.now() - t0);
        done++;
      }
      process.stderr.write(`\r  ${backend} ${size.toLocaleString()}: ${done} / ${total} timed runs`);
    }
  }
  process.stderr.write('\n');
  return rows;
}

/**
 * Ranking quality of the popularity-capped page against exact ranking (reference/SEARCH.md §7):
 * how many of the 15 returned are in the exact top 15 (ties included), and the share of the
 * exact top-15 score mass they carry.
 */
interface Quality {
  backend: string;
  size: number;
  term: string;
  inTop: number;
  mass: number;
}

async function rankingQuality(
  catalogue: Catalogue,
  backend: string,
  size: number,
  term: string,
): Promise<Quality> {
  const exact = await searchSounds(catalogue, { query: term, limit: 15 }, { popularityCapAbove: Infinity });
  const capped = await searchSounds(catalogue, { query: term, limit: 15 }, { popularityCapAbove: 0 });
  const cutoff = exact.scores[exact.scores.length - 1] ?? 0;
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    backend,
    size,
    term,
    inTop: capped.scores.filter((x) => x >= cutoff).length,
    mass: sum(capped.scores) / (sum(exact.scores) || 1),
  };
}

function table(rows: Row[]): string {
  const lines = [
    '| backend | sounds | query | count | engine p50 | engine p95 | bare SQL p50 | bare SQL p95 | engine / bare (p50) | engine / bare (p95) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const [e50, e95, b50, b95] = [
      percentile(r.engine, 50),
      percentile(r.engine, 95),
      percentile(r.bare, 50),
      percentile(r.bare, 95),
    ];
    lines.push(
      `| ${r.backend} | ${r.size.toLocaleString()} | ${r.query} | ${r.count.toLocaleString()} | ${e50.toFixed(1)} | ${e95.toFixed(1)} | ${b50.toFixed(1)} | ${b95.toFixed(1)} | ${(e50 / b50).toFixed(2)} | ${(e95 / b95).toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

const loadBefore = os.loadavg()[0];
const all: Row[] = [];
const quality: Quality[] = [];
for (const size of [...new Set([...sizes, ...pgliteSizes])].sort((a, b) => a - b)) {
  const backends: [string, () => Promise<Catalogue>][] = [];
  if (sizes.includes(size)) backends.push(['postgres', () => serverCatalogue(size)]);
  if (pgliteSizes.includes(size)) backends.push(['pglite', () => pgliteCatalogue(size)]);
  for (const [backend, open] of backends) {
    const catalogue = await open();
    try {
      await ensureSeeded(catalogue, size, `${backend} ${size.toLocaleString()}`);
      await settle(catalogue);
      all.push(...(await timeSet(catalogue, backend, size)));
      if (!only || 'common term'.includes(only))
        quality.push(await rankingQuality(catalogue, backend, size, COMMON_WORD));
    } finally {
      await catalogue.close();
    }
  }
}
const report = [
  `Search latency, ms (single client, warm, ${reps} runs per query after 3 warm-up passes; page of 15 + exact count).`,
  `Machine load average (1 min) before / after: ${loadBefore.toFixed(1)} / ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores` +
    ' (other engineers share the machine; read figures with that in mind).',
  '"bare SQL" is the same page and count written by hand and sent directly (the floor).',
  '',
  table(all),
  '',
  'Ranking quality of the popularity-capped page (top 1000 matches by downloads, re-ranked by exact ts_rank) against exact ranking:',
  '',
  '| backend | sounds | term | capped page results in the exact top 15 (ties incl.) | share of the exact top-15 score mass |',
  '|---|---|---|---|---|',
  ...quality.map(
    (q) => `| ${q.backend} | ${q.size.toLocaleString()} | ${q.term} | ${q.inTop}/15 | ${q.mass.toFixed(2)} |`,
  ),
  '',
].join('\n');
process.stdout.write(`\n${report}`);
fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
fs.writeFileSync(
  resultsFile,
  `# Search benchmark\n\nCommand: \`npx earshot bench search ${process.argv.slice(2).join(' ')}\`\n` +
    `Machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}\n\n${report}`,
);
