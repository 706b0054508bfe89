// Text search structures side by side at a given catalogue size (issue 33): today's engine
// (PostgreSQL: GIN, side tables, popularity-capped pages for very common words) against a
// per-process posting index (packages/catalogue/src/search/posting-index.ts: posting lists in
// typed arrays, built from the search document), on the realistic query log of record
// (realistic-workload.ts), one client, on the same requests in alternating order.
//   npx earshot bench search-structures [--sounds 1000000] [--requests 600] [--relevance 200] [--no-seed]
// Prints: the index's build time and memory, latency per engine (p50 / p95 / p99, and by kind of
// request), whether every count agrees, and the ranking of the first page of the most frequent
// queries against the exact weighted ranking (ts_rank over every match).

import os from 'node:os';
import {
  loadPostingIndex,
  openCatalogue,
  type PostingIndexData,
  postingIndexAnswers,
  postingSearch,
  prepareSearch,
  searchSounds,
} from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { apiBenchDatabase, ensureApiBenchCatalogue } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import {
  realisticSearches,
  searchRequest,
  searchStream,
  seededRandom,
  type TextSearch,
} from './realistic-workload.ts';

const sounds = Number(arg('sounds', '1000000'));
const requests = Number(arg('requests', '600'));
const relevanceQueries = Number(arg('relevance', '200'));
const { dbUrl } = apiBenchDatabase(sounds);

// Searches take what the database needs (the API stops them at its budget, a 409).
const unbounded = { budgetMs: Number.POSITIVE_INFINITY };
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
const kindOf = (q: TextSearch) =>
  q.query.startsWith('"') ? 'phrase' : q.filter ? 'filtered + sorted' : q.groupByPack ? 'grouped' : 'plain';

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}
const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/** The bytes of the index's typed arrays (each buffer once: posting lists share theirs). */
function indexBytes(index: PostingIndexData): number {
  const buffers = new Set<ArrayBufferLike>();
  for (const list of index.lexemes.values()) buffers.add(list.ids.buffer).add(list.scores.buffer);
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

async function main() {
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
    const random = seededRandom(18);
    const distinct = await realisticSearches(dbUrl, 10_000, random);
    const stream = searchStream(distinct, 200_000, random);
    const frequency = new Map<TextSearch, number>();
    for (const q of stream) frequency.set(q, (frequency.get(q) ?? 0) + 1);
    const byFrequency = [...frequency.entries()].sort((a, b) => b[1] - a[1]).map(([q]) => q);
    // The timed requests: the stream's distinct requests in the order it first asks them.
    const timed: TextSearch[] = [];
    for (const q of stream) if (!timed.includes(q) && timed.push(q) >= requests) break;

    console.log(`\n## Search structures, ${sounds} sounds (${new Date().toISOString()}, load ${load()})\n`);
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

    const memo = new Map<string, string[]>();
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
        const r =
          (await postingSearch(catalogue.db, index, search, memo)) ??
          (await searchSounds(catalogue, search, unbounded));
        return { r, t: performance.now() - t, fromIndex: postingIndexAnswers(search) };
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
