// Text search structures side by side at a given catalogue size (issue 33): today's engine
// (PostgreSQL: GIN, side tables, popularity-capped pages for very common words) against a
// per-process posting index (packages/catalogue/src/search/posting-index.ts: posting lists in
// typed arrays, built from the search document), on the realistic query log of record
// (realistic-workload.ts), one client, on the same requests in alternating order.
//   npx earshot bench search-structures [--sounds 1000000] [--requests 600] [--relevance 200] [--no-seed]
//     [--start-only]   (only the API's index start: from the catalogue, then from its snapshot)
//     [--embedded [--rounds 2]]   (only the embedded (PGlite) API's start and memory, with the index and without)
// Prints: how long the API's live index takes to be ready in a fresh process, built from the
// catalogue and started from the snapshot that build wrote, with that process's memory; the index's build time and memory, latency per engine (p50 / p95 / p99, and by kind of
// request), whether every count agrees, and the ranking of the first page of the most frequent
// queries against the exact weighted ranking (ts_rank over every match).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAppDeps } from '@earshot/api';
import {
  type ClauseMemo,
  LiveSearchIndex,
  loadPostingIndex,
  NO_CHANGE_FEED,
  openCatalogue,
  type PostingIndexData,
  postingSearch,
  prepareSearch,
  searchSounds,
} from '@earshot/catalogue';
import { loadSyntheticCatalogue } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { searchIndexSnapshotStore } from '@earshot/services';
import { sql } from 'kysely';
import { apiBenchDatabase, ensureApiBenchCatalogue } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { loadAverage as load, quantile } from './load-and-quantiles.ts';
import { firstAsked, queryLog, searchRequest, type TextSearch } from './realistic-workload.ts';

const sounds = Number(arg('sounds', '1000000'));
const requests = Number(arg('requests', '600'));
const relevanceQueries = Number(arg('relevance', '200'));
const { dbUrl } = apiBenchDatabase(sounds);

// Searches take what the database needs (the API stops them at its budget, a 409).
const unbounded = { budgetMs: Number.POSITIVE_INFINITY };
const kindOf = (q: TextSearch) =>
  q.query.startsWith('"') ? 'phrase' : q.filter ? 'filtered + sorted' : q.groupByPack ? 'grouped' : 'plain';

const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/** The bytes of the index's typed arrays (each buffer once: posting lists share theirs). */
function indexBytes(index: PostingIndexData): number {
  const buffers = new Set<ArrayBufferLike>();
  for (const list of index.lexemes.values())
    buffers
      .add(list.ids.buffer)
      .add(list.scores.buffer)
      .add(list.positions.first.buffer)
      .add(list.positions.more.buffer);
  for (const ids of index.tags.values()) buffers.add(ids.buffer);
  for (const column of Object.values(index.columns)) buffers.add((column as Uint8Array).buffer);
  let bytes = 0;
  for (const b of buffers) bytes += b.byteLength;
  return bytes;
}

/** Share of the exact top 15 that the page holds, and Spearman's rank correlation over the ids both hold. */
function agreement(page: number[], exact: number[]): { overlap: number; rho: number | null } {
  const top = exact.slice(0, 15);
  if (!top.length) return { overlap: 1, rho: null };
  const mine = page.slice(0, 15);
  const common = top.filter((id) => mine.includes(id));
  const overlap = common.length / top.length;
  if (common.length < 2) return { overlap, rho: null };
  const rankIn = (list: number[]) =>
    common.map((id) => common.filter((x) => list.indexOf(x) < list.indexOf(id)).length);
  const a = rankIn(top);
  const b = rankIn(mine);
  const n = common.length;
  const d2 = a.reduce((s, r, i) => s + (r - b[i]) ** 2, 0);
  return { overlap, rho: 1 - (6 * d2) / (n * (n * n - 1)) };
}

/**
 * Child mode (`--live-start <dataDir>`): the API's index as a server starts it, in a process of its
 * own so its memory is the index's and the runtime's only; prints one JSON line.
 */
async function liveStart(dataDir: string): Promise<void> {
  const config = loadConfig({ DATABASE_URL: dbUrl });
  const catalogue = await openCatalogue({
    config,
    logger: createLogger('warn'),
    role: 'command',
    migrate: false,
  });
  const store = searchIndexSnapshotStore(dataDir);
  const fromSnapshot = (await store.read()) !== undefined;
  const started = performance.now();
  const index = new LiveSearchIndex(catalogue.db, NO_CHANGE_FEED, { snapshots: store }).start();
  while (!index.isReady()) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  index.close();
  await catalogue.close();
  console.log(JSON.stringify({ fromSnapshot, seconds, rss, heapUsed, sounds: index.stats()?.sounds }));
}

/** Runs this benchmark again in a child mode, in a fresh process, and reads the JSON line it ends with. */
function childResult<T>(mode: string, value: string): T {
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, '--expose-gc', process.argv[1], '--sounds', String(sounds), mode, value],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').at(-1) as string) as T;
}

/** The API's index start, twice in fresh processes: built from the catalogue (writing its snapshot), then from the snapshot. */
function liveStartRows(): void {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-search-start-'));
  try {
    const child = () =>
      childResult<{ fromSnapshot: boolean; seconds: number; rss: number; heapUsed: number; sounds: number }>(
        '--live-start',
        dataDir,
      );
    const loadBefore = load();
    const built = child();
    const snapshotBytes = fs.statSync(path.join(dataDir, 'search-index', 'posting-index.bin')).size;
    const loaded = child();
    const mib = (x: number) => (x / 2 ** 20).toFixed(0);
    console.log(
      `\nThe API's live index in a fresh process (LiveSearchIndex, as \`buildAppDeps\` starts it; load ${loadBefore} → ${load()}); snapshot ${mib(snapshotBytes)} MiB:\n`,
    );
    console.log('| start | sounds | ready in s | process rss MiB | heap MiB | target |');
    console.log('|---|---:|---:|---:|---:|---|');
    for (const [name, r] of [
      ['built from the catalogue (and its snapshot written)', built],
      ['from its snapshot, caught up from search_changes', loaded],
    ] as const)
      console.log(
        `| ${name} | ${r.sounds} | ${r.seconds.toFixed(1)} | ${mib(r.rss)} | ${mib(r.heapUsed)} | ≤ 60 s at 1M |`,
      );
    if (built.fromSnapshot || !loaded.fromSnapshot)
      throw new Error('the two starts did not take the two paths');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const embeddedDir = path.join(os.tmpdir(), 'earshot-bench', `search-pglite-${sounds}`);
interface EmbeddedStart {
  depsSeconds: number;
  readySeconds: number;
  rss: number;
  heapUsed: number;
  fromSnapshot: boolean;
}

/**
 * Child mode (`--embedded-start on|off`): an embedded (PGlite) API process as `earshot serve` wires
 * it, with its text search index or without (the tree before the index); prints one JSON line.
 */
async function embeddedStart(index: boolean): Promise<void> {
  const logger = createLogger('warn');
  const config = loadConfig({ DATA_DIR: embeddedDir });
  const fromSnapshot = fs.existsSync(path.join(embeddedDir, 'search-index', 'posting-index.bin'));
  const started = performance.now();
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  const deps = await buildAppDeps({ config, logger, catalogue, searchIndex: index, similarityRefreshMs: 0 });
  const depsSeconds = (performance.now() - started) / 1000;
  const ready = deps.readiness?.searchIndex ?? (() => true);
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 20));
  const readySeconds = (performance.now() - started) / 1000;
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  await deps.dispose();
  await catalogue.close();
  console.log(
    JSON.stringify({ depsSeconds, readySeconds, rss, heapUsed, fromSnapshot } satisfies EmbeddedStart),
  );
}

/** The embedded API's start-up and memory with the index and without, alternated, in fresh processes. */
async function embeddedRows(): Promise<void> {
  fs.mkdirSync(embeddedDir, { recursive: true });
  const seed = await openCatalogue({
    config: loadConfig({ DATA_DIR: embeddedDir }),
    logger: createLogger('warn'),
    role: 'command',
    // The synthetic loader rebuilds the search document of every sound in one statement.
    answerMs: 3_600_000,
  });
  try {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from sound_search`.execute(seed.db);
    if (rows[0].n !== sounds) {
      if (rows[0].n !== 0) throw new Error(`${embeddedDir} holds ${rows[0].n} sounds, not ${sounds}`);
      await loadSyntheticCatalogue(seed.db, {
        sounds,
        progress: (n) => process.stdout.write(`\r  seeding the embedded catalogue ${n}/${sounds}`),
      });
      await sql`vacuum analyze`.execute(seed.db);
    }
  } finally {
    await seed.close();
  }
  fs.rmSync(path.join(embeddedDir, 'search-index'), { recursive: true, force: true });
  const child = (index: boolean) => childResult<EmbeddedStart>('--embedded-start', index ? 'on' : 'off');
  const rounds = Number(arg('rounds', '2'));
  const loadBefore = load();
  const runs: { name: string; r: EmbeddedStart }[] = [];
  for (let round = 0; round < rounds; round++) {
    runs.push({ name: 'without the index (before issue 33)', r: child(false) });
    const r = child(true);
    runs.push({
      name: r.fromSnapshot ? 'with the index, from its snapshot' : 'with the index, built from the catalogue',
      r,
    });
    process.stdout.write(`\r  round ${round + 1}/${rounds}`);
  }
  const mib = (x: number) => (x / 2 ** 20).toFixed(0);
  console.log(
    `\n\nThe embedded (PGlite) API process in a data folder of ${sounds} sounds, fresh processes in alternation (load ${loadBefore} → ${load()}): wired = \`buildAppDeps\` done (the server would listen), ready = the text index answers; rss after a collection at ready.\n`,
  );
  console.log('| process | wired s | ready s | rss MiB | heap MiB |');
  console.log('|---|---:|---:|---:|---:|');
  for (const { name, r } of runs)
    console.log(
      `| ${name} | ${r.depsSeconds.toFixed(1)} | ${r.readySeconds.toFixed(1)} | ${mib(r.rss)} | ${mib(r.heapUsed)} |`,
    );
}

async function main() {
  if (process.argv.includes('--embedded-start')) return embeddedStart(arg('embedded-start', 'on') === 'on');
  if (process.argv.includes('--embedded')) {
    console.log(`\n## The embedded API's start and memory, ${sounds} sounds (${new Date().toISOString()})`);
    return embeddedRows();
  }
  const liveStartDir = process.argv.includes('--live-start') ? arg('live-start', '') : undefined;
  if (liveStartDir) return liveStart(liveStartDir);
  if (process.argv.includes('--start-only')) {
    console.log(`\n## The API's search index start, ${sounds} sounds (${new Date().toISOString()})`);
    return liveStartRows();
  }
  // --no-seed: use the catalogue as it is (while another run is still seeding its descriptors).
  if (!process.argv.includes('--no-seed')) await ensureApiBenchCatalogue(sounds, false);
  const config = loadConfig({ DATABASE_URL: dbUrl });
  const catalogue = await openCatalogue({
    config,
    logger: createLogger('warn'),
    role: 'command',
    migrate: false,
  });
  try {
    const { stream } = await queryLog(dbUrl);
    const frequency = new Map<TextSearch, number>();
    for (const q of stream) frequency.set(q, (frequency.get(q) ?? 0) + 1);
    const byFrequency = [...frequency.entries()].sort((a, b) => b[1] - a[1]).map(([q]) => q);
    // The timed requests: the stream's distinct requests in the order it first asks them.
    const timed = firstAsked(stream, requests);

    console.log(`\n## Search structures, ${sounds} sounds (${new Date().toISOString()}, load ${load()})\n`);
    liveStartRows();
    globalThis.gc?.();
    const before = process.memoryUsage();
    const started = performance.now();
    const index = await loadPostingIndex(catalogue.db, (n, total) =>
      process.stdout.write(`\r  posting index: ${n}/${total} sounds`),
    );
    const buildSeconds = (performance.now() - started) / 1000;
    globalThis.gc?.();
    const after = process.memoryUsage();
    let postings = 0;
    for (const list of index.lexemes.values()) postings += list.ids.length;
    const mb = (x: number) => (x / 2 ** 20).toFixed(0);
    console.log(
      `\n  built in ${buildSeconds.toFixed(1)} s (load ${load()}): ${index.lexemes.size} lexemes, ${postings} postings, ${index.tags.size} tags;` +
        ` its arrays ${mb(indexBytes(index))} MB; process heap +${mb(after.heapUsed - before.heapUsed)} MB (maps and keys), rss ${mb(after.rss)} MB\n`,
    );

    const memo: ClauseMemo = new Map();
    const times = { pg: [] as number[], index: [] as number[] };
    const byKind = new Map<string, { pg: number[]; index: number[] }>();
    let answered = 0;
    let mismatched = 0;
    for (const [i, q] of timed.entries()) {
      const request = searchRequest(q);
      const runPg = async () => {
        const t = performance.now();
        const r = await searchSounds(catalogue, request, unbounded);
        return { r, t: performance.now() - t };
      };
      const runIndex = async () => {
        const t = performance.now();
        const search = prepareSearch(request);
        const mine = await postingSearch(catalogue.db, index, search, memo);
        const r = mine ?? (await searchSounds(catalogue, search, unbounded));
        return { r, t: performance.now() - t, fromIndex: mine !== undefined };
      };
      // Alternate which engine goes first: neither always finds the other's pages cached.
      const [a, b] =
        i % 2
          ? [await runPg(), await runIndex()]
          : await (async () => {
              const x = await runIndex();
              return [await runPg(), x] as const;
            })();
      times.pg.push(a.t);
      times.index.push(b.t);
      const k = byKind.get(kindOf(q)) ?? { pg: [], index: [] };
      k.pg.push(a.t);
      k.index.push(b.t);
      byKind.set(kindOf(q), k);
      if (b.fromIndex) answered++;
      if (a.r.count !== b.r.count) {
        mismatched++;
        if (mismatched <= 5)
          console.log(
            `  count differs for ${JSON.stringify(q)}: PostgreSQL ${a.r.count}, index ${b.r.count}`,
          );
      }
      process.stdout.write(`\r  timed ${i + 1}/${timed.length}`);
    }
    console.log(
      `\n\n${timed.length} distinct requests of the log in stream order, one client; ${answered} answered by the index (the rest fall back to PostgreSQL); counts differ for ${mismatched}. Load ${load()}.\n`,
    );
    console.log('| requests | n | PostgreSQL engine p50 / p95 / p99 ms | posting index p50 / p95 / p99 ms |');
    console.log('|---|---:|---|---|');
    const row = (name: string, t: { pg: number[]; index: number[] }) =>
      console.log(
        `| ${name} | ${t.pg.length} | ${[0.5, 0.95, 0.99].map((p) => ms(quantile(t.pg, p))).join(' / ')} | ${[0.5, 0.95, 0.99].map((p) => ms(quantile(t.index, p))).join(' / ')} |`,
      );
    row('all', times);
    for (const [kind, t] of byKind) row(kind, t);

    // Relevance: the first page of the most frequent queries ranked by relevance, against ts_rank over every match.
    const ranked = byFrequency.filter((q) => !q.sort).slice(0, relevanceQueries);
    const scores = { pg: [] as ReturnType<typeof agreement>[], index: [] as ReturnType<typeof agreement>[] };
    for (const [i, q] of ranked.entries()) {
      const request = { ...searchRequest(q), offset: 0 };
      const exact = await searchSounds(catalogue, request, {
        popularityCapAbove: Number.POSITIVE_INFINITY,
        budgetMs: Number.POSITIVE_INFINITY,
      });
      const pg = await searchSounds(catalogue, request);
      const viaIndex = (await postingSearch(catalogue.db, index, prepareSearch(request), memo)) ?? pg;
      scores.pg.push(agreement(pg.ids, exact.ids));
      scores.index.push(agreement(viaIndex.ids, exact.ids));
      process.stdout.write(`\r  relevance ${i + 1}/${ranked.length}`);
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
    const summary = (xs: ReturnType<typeof agreement>[]) =>
      `${mean(xs.map((x) => x.overlap)).toFixed(3)} (min ${Math.min(...xs.map((x) => x.overlap)).toFixed(2)}) | ${mean(xs.flatMap((x) => (x.rho === null ? [] : [x.rho]))).toFixed(3)}`;
    console.log(
      `\n\nFirst page of the ${ranked.length} most frequent relevance-ordered queries against exact weighted ranking (load ${load()}):\n`,
    );
    console.log('| engine | mean top-15 overlap | mean rank correlation (ids both hold) |');
    console.log('|---|---|---|');
    console.log(`| PostgreSQL engine | ${summary(scores.pg)} |`);
    console.log(`| posting index | ${summary(scores.index)} |`);
  } finally {
    await catalogue.close();
  }
}

await main();
