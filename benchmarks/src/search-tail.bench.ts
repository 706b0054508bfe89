// Where the cold text-search tail of the realistic API row comes from (issue 18): the searches the
// API row asks for the first time (its caches answer the repeats), in the order the row first asks
// them, run through the catalogue's `searchSounds` on the API bench catalogue — one at a time (each
// search's own cost; the first time, as a cold request meets them, and again with the term memo
// taught) and then `--concurrency` at once (the tail under load, as the API's pool sees it). Prints, per request shape, how many, their share of the total time and their p50/p99/max,
// and the slowest requests with the document frequency of their commonest word. Diagnostic only:
// it writes no results file.
//   npx earshot bench search-tail [--sounds 100000] [--count 3000] [--concurrency 10] [--pool 10] [--top 25]
//     [--explain 5]   (the statements of the slowest N, each with EXPLAIN (ANALYZE, BUFFERS) of it)

import os from 'node:os';
import { type Catalogue, openCatalogue, searchSounds } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import pg from 'pg';
import { apiBenchDatabase, apiBenchDataDir, ensureApiBenchCatalogue } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { firstAsked, queryLog, searchRequest, type TextSearch } from './realistic-workload.ts';

const sounds = Number(arg('sounds', '100000'));
const count = Number(arg('count', '3000'));
const concurrency = Number(arg('concurrency', '10'));
const top = Number(arg('top', '25'));
const explain = Number(arg('explain', '0'));
const poolSize = Number(arg('pool', '10'));
const { dbUrl } = apiBenchDatabase(sounds);
const logger = createLogger('warn');

/**
 * The searches the API row asks in the order it first asks them (api.bench.ts draws them the same
 * way): the first `count` to time, then the next `count` to warm the server's buffers with.
 */
async function coldSearches(): Promise<{ timed: TextSearch[]; warmUp: TextSearch[] }> {
  const { stream } = await queryLog(dbUrl);
  const out = firstAsked(stream, 2 * count);
  return { timed: out.slice(0, count), warmUp: out.slice(count) };
}

/** The shape of a request: words, filter, sort, page. */
function shape(q: TextSearch): string {
  const words = q.query.split(/\s+/).length;
  const parts = [`${words} word${words > 1 ? 's' : ''}`];
  if (q.filter) parts.push(`filter ${q.filter.split(':')[0]}`);
  if (q.sort) parts.push(`sort ${q.sort}`);
  if (q.groupByPack) parts.push('grouped');
  if (q.page) parts.push('page > 1');
  return parts.join(', ');
}

/** The visible sounds holding each word's lexeme (search_term_df), 0 for a stopword or unknown word. */
async function documentFrequencies(words: string[]): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ w: string; n: number | null }>(
      `select w, d.ndoc as n from unnest($1::text[]) w
       left join search_term_df d on d.lexeme = (tsvector_to_array(to_tsvector('english', w)))[1]`,
      [words],
    );
    return new Map(rows.map((r) => [r.w, Number(r.n ?? 0)]));
  } finally {
    await client.end();
  }
}

interface Timed {
  q: TextSearch;
  ms: number;
}

/** Runs the searches with `parallel` in flight, in order; each one's wall time. */
async function timeAll(catalogue: Catalogue, searches: TextSearch[], parallel: number): Promise<Timed[]> {
  const out: Timed[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < searches.length) {
        const q = searches[next++];
        const started = performance.now();
        await searchSounds(catalogue, searchRequest(q));
        out.push({ q, ms: performance.now() - started });
      }
    }),
  );
  return out;
}

const at = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;

function report(title: string, timed: Timed[], df: Map<string, number>): void {
  const total = timed.reduce((s, t) => s + t.ms, 0);
  const all = timed.map((t) => t.ms).sort((a, b) => a - b);
  console.log(
    `\n## ${title}\n\n${timed.length} searches, ${total.toFixed(0)} ms in all; p50 ${at(all, 0.5).toFixed(1)} ms, p99 ${at(all, 0.99).toFixed(1)} ms, max ${all[all.length - 1]?.toFixed(1)} ms\n`,
  );
  const byShape = new Map<string, number[]>();
  for (const t of timed) byShape.set(shape(t.q), [...(byShape.get(shape(t.q)) ?? []), t.ms]);
  console.log('| shape | n | share of time | p50 ms | p99 ms | max ms |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const shapes = [...byShape].sort(
    (a, b) => b[1].reduce((s, x) => s + x, 0) - a[1].reduce((s, x) => s + x, 0),
  );
  for (const [name, xs] of shapes.slice(0, 20)) {
    xs.sort((a, b) => a - b);
    const sum = xs.reduce((s, x) => s + x, 0);
    console.log(
      `| ${name} | ${xs.length} | ${((sum / total) * 100).toFixed(1)}% | ${at(xs, 0.5).toFixed(1)} | ${at(xs, 0.99).toFixed(1)} | ${xs[xs.length - 1].toFixed(1)} |`,
    );
  }
  console.log(`\nslowest ${top}:\n`);
  for (const t of [...timed].sort((a, b) => b.ms - a.ms).slice(0, top)) {
    const dfs = t.q.query.split(/\s+/).map((w) => `${w}:${df.get(w) ?? '?'}`);
    console.log(
      `  ${t.ms.toFixed(1)} ms  ${JSON.stringify({ ...t.q, query: undefined })}  words ${dfs.join(' ')}`,
    );
  }
}

/**
 * The statements the slowest searches send (caught on their way to the server) and the plan of
 * each, run with the same values (as custom plans, as the catalogue's connections plan them).
 */
async function explainSlowest(catalogue: Catalogue, timed: Timed[], n: number): Promise<void> {
  const slowest = [...timed].sort((a, b) => b.ms - a.ms).slice(0, n);
  const sent: Array<{ text: string; values: unknown[] }> = [];
  const original = pg.Client.prototype.query;
  // A diagnostic only: every query of this process passes here while the searches run again.
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    if (config && typeof config === 'object' && 'text' in config) {
      const c = config as { text: string; values?: unknown[] };
      if (c.text.includes('sound_search')) sent.push({ text: c.text, values: c.values ?? [] });
    }
    return (original as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof original;
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    for (const t of slowest) {
      sent.length = 0;
      await timeAll(catalogue, [t.q], 1);
      console.log(`\n### ${t.ms.toFixed(1)} ms: ${JSON.stringify(t.q)}`);
      for (const statement of [...sent]) {
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, buffers, verbose) ${statement.text}`,
          statement.values,
        );
        console.log(
          `\n${statement.text.replace(/\s+/g, ' ').slice(0, 600)}\n  values ${JSON.stringify(statement.values)}`,
        );
        for (const row of plan.rows) console.log(`  ${row['QUERY PLAN']}`);
      }
    }
  } finally {
    pg.Client.prototype.query = original;
    await client.end();
  }
}

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  await ensureApiBenchCatalogue(sounds, false);
  const { timed: searches, warmUp } = await coldSearches();
  const words = [...new Set(searches.flatMap((q) => q.query.split(/\s+/)))];
  const df = await documentFrequencies(words);
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: apiBenchDataDir(dbUrl) });
  // One catalogue throughout, as a serving process has: what its term memo learns stays.
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false, poolSize });
  try {
    // Other searches first, to read the tables into memory; then the timed ones twice alone: the
    // first time as the API meets them (the term memo has not seen them: what a cold request
    // pays), the second with the memo taught.
    await timeAll(catalogue, warmUp, 1);
    report('one at a time, each search the first time', await timeAll(catalogue, searches, 1), df);
    const alone = await timeAll(catalogue, searches, 1);
    report('one at a time, the second time (the term memo taught)', alone, df);
    const loaded = await timeAll(catalogue, searches, concurrency);
    report(`${concurrency} at once, a pool of ${poolSize} connections`, loaded, df);
    if (explain > 0) await explainSlowest(catalogue, alone, explain);
  } finally {
    await catalogue.close();
  }
  console.log(
    `\nload average ${loadAtStart.map((l) => l.toFixed(1)).join(' / ')} at the start, ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end`,
  );
}

await main();
