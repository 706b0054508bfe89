// Facets on text search (issue 36): the cost of a search with facets against the same search
// without, on the API bench catalogue and the realistic query log of record (realistic-workload.ts),
// one client, each distinct request run both ways in alternating order. Searches run as the API's
// engine runs them: from the posting index where it answers (its facets from the index's per-sound
// columns), else in PostgreSQL (facets by one grouped statement beside the page and count). No
// answer cache: every timed request is computed.
// Then, for information, what a client pays: an API process (as the api bench starts one) asked
// the same distinct requests once with and once without `facets=`, alternated, through HTTP.
//   npx earshot bench facets [--sounds 100000] [--requests 400] [--facets tags,license,...] [--limit 10] [--reps 3] [--no-http] [--out file]
// Prints: what facets add to the index's memory, the latency with and without facets per path
// (p50 / p99, and their ratios: target ≤ 2×), whether the index's facets equal PostgreSQL's, and
// the HTTP row.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type ClauseMemo,
  FACET_NAMES,
  type FacetName,
  loadPostingIndex,
  openCatalogue,
  type PostingIndexData,
  postingSearch,
  prepareSearch,
  type SearchResult,
  searchSounds,
} from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import {
  apiBenchDatabase,
  apiBenchDataDir,
  ensureApiBenchCatalogue,
  runApiBenchServer,
  searchIndexBuilt,
  spawnApiBenchServer,
} from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { loadAverage as load, quantile } from './load-and-quantiles.ts';
import { firstAsked, queryLog, searchParams, searchRequest, type TextSearch } from './realistic-workload.ts';

const sounds = Number(arg('sounds', '100000'));
const requests = Number(arg('requests', '400'));
const facetNames = arg('facets', FACET_NAMES.join(',')).split(',') as FacetName[];
const facetLimit = Number(arg('limit', '10'));
const out = arg('out', '');
const reps = Number(arg('reps', '3'));
const { dbUrl } = apiBenchDatabase(sounds);

const unbounded = { budgetMs: Number.POSITIVE_INFINITY };

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

/** Bytes the facets add to the index: the facet columns and each sound's tag list. */
function facetBytes(index: PostingIndexData): number {
  const c = index.columns;
  const columns = [c.category, c.subcategory, c.username, c.pack, c.samplerate, c.channels, c.bitdepth];
  return (
    columns.reduce((n, a) => n + a.byteLength, 0) +
    index.tagsBySound.starts.byteLength +
    index.tagsBySound.tags.byteLength
  );
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

/**
 * The same distinct requests through the API with and without `facets=`, each once per side, which
 * side goes first alternating. Before, each is asked once at another page size, untimed: the
 * process learns its words' terms (a statement the first time) and no answer cache holds a timed
 * request (they are kept by the whole request, page size and facets included).
 */
async function httpRow(timed: TextSearch[], key: string, print: (line?: string) => void): Promise<void> {
  const api = spawnApiBenchServer(fileURLToPath(import.meta.url), sounds);
  try {
    const origin = await api.origin;
    await searchIndexBuilt(origin);
    const headers = { Authorization: `Token ${key}` };
    const get = async (params: Record<string, string>) => {
      const t = performance.now();
      const res = await fetch(`${origin}/apiv2/search/?${new URLSearchParams(params)}`, { headers });
      const bytes = (await res.arrayBuffer()).byteLength;
      return { ms: performance.now() - t, status: res.status, bytes };
    };
    const withFacets = { facets: facetNames.join(','), facet_limit: String(facetLimit) };
    for (const [i, q] of timed.entries()) {
      const { page: _, ...firstPage } = searchParams(q);
      await get({ ...firstPage, page_size: q.pageSize === 1 ? '2' : '1' });
      process.stdout.write(`\r  HTTP warm-up ${i + 1}/${timed.length}`);
    }
    process.stdout.write('\n');
    const plain: number[] = [];
    const faceted: number[] = [];
    const bytes = { plain: 0, faceted: 0 };
    let statusesDiffer = 0;
    let notOk = 0;
    for (const [i, q] of timed.entries()) {
      const params = searchParams(q);
      const facetedFirst = i % 2 === 1;
      const a = await get(facetedFirst ? { ...params, ...withFacets } : params);
      const b = await get(facetedFirst ? params : { ...params, ...withFacets });
      const [p, f] = facetedFirst ? [b, a] : [a, b];
      plain.push(p.ms);
      faceted.push(f.ms);
      bytes.plain += p.bytes;
      bytes.faceted += f.bytes;
      if (p.status !== f.status) statusesDiffer++;
      if (p.status !== 200) notOk++;
      process.stdout.write(`\r  HTTP timed ${i + 1}/${timed.length}`);
    }
    process.stdout.write('\n');
    const row = (xs: number[]) => `${ms(quantile(xs, 0.5))} / ${ms(quantile(xs, 0.99))}`;
    print(
      `Through HTTP (information, not the target's measure): an API process on the same catalogue (as \`earshot bench api\` starts one, ` +
        `its search index ready), one client, the same ${timed.length} requests as \`/apiv2/search/\` once without and once with ` +
        `\`facets=…&facet_limit=${facetLimit}\`, which goes first alternating, each asked once before at another page size (untimed). ` +
        `Load at the end ${load()}.`,
    );
    print();
    print(
      '| requests | n | without facets p50 / p99 ms | with facets p50 / p99 ms | ratio p50 | ratio p99 | mean answer bytes without → with |',
    );
    print('|---|---:|---|---|---:|---:|---|');
    print(
      `| all, through HTTP | ${timed.length} | ${row(plain)} | ${row(faceted)} | ` +
        `${(quantile(faceted, 0.5) / quantile(plain, 0.5)).toFixed(2)} | ${(quantile(faceted, 0.99) / quantile(plain, 0.99)).toFixed(2)} | ` +
        `${Math.round(bytes.plain / timed.length)} → ${Math.round(bytes.faceted / timed.length)} |`,
    );
    print();
    print(
      `- ${notOk} of ${timed.length} requests answered other than 200 (a page past the last); the status with and without facets differs for ${statusesDiffer}.`,
    );
  } finally {
    api.stop();
  }
}

async function main() {
  const seed = !process.argv.includes('--no-seed');
  const key = seed ? await ensureApiBenchCatalogue(sounds, false) : undefined;
  const catalogue = await openCatalogue({
    config: loadConfig({ DATABASE_URL: dbUrl }),
    logger: createLogger('warn'),
    role: 'command',
    migrate: false,
  });
  const lines: string[] = [];
  const print = (line = '') => {
    lines.push(line);
    console.log(line);
  };
  try {
    const { stream } = await queryLog(dbUrl, 36);
    // The timed requests: the stream's distinct requests in the order it first asks them.
    const timed = firstAsked(stream, requests);
    const started = performance.now();
    const index = await loadPostingIndex(catalogue.db, (n, total) =>
      process.stdout.write(`\r  posting index: ${n}/${total} sounds`),
    );
    const present = index.columns.present.reduce((n, p) => n + p, 0);
    const perMillion = (bytes: number) => ((bytes / present) * 1e6) / 2 ** 20;
    process.stdout.write('\n');
    print(`## Facets, ${sounds} sounds (${new Date().toISOString()}, load ${load()})`);
    print();
    print(`\`npx earshot bench facets --sounds ${sounds} --requests ${requests}\``);
    print();
    print(
      `Index built in ${((performance.now() - started) / 1000).toFixed(1)} s for ${present} sounds. What facets add: ` +
        `${(facetBytes(index) / 2 ** 20).toFixed(1)} MiB of typed arrays (${perMillion(facetBytes(index)).toFixed(0)} MiB per million sounds: ` +
        `7 facet columns, ${index.tagsBySound.tags.length} (sound, tag) pairs), and their value lists ` +
        `(${Object.values(index.facetValues).reduce((n, v) => n + v.length, 0)} strings).`,
    );
    print();

    const memo: ClauseMemo = new Map();
    const facets = { names: facetNames, limit: facetLimit };
    /** One search as the API's engine runs it: the index where it answers, else PostgreSQL. */
    const run = async (request: ReturnType<typeof searchRequest>, withFacets: boolean) => {
      const t = performance.now();
      const search = prepareSearch(withFacets ? { ...request, facets } : request);
      const mine = await postingSearch(catalogue.db, index, search, memo);
      const r: SearchResult = mine ?? (await searchSounds(catalogue, search, unbounded));
      return { r, t: performance.now() - t, path: mine ? 'index' : 'PostgreSQL' };
    };
    const times = new Map<string, { plain: number[]; faceted: number[] }>();
    // Rows: the whole mix, each path, and the quoted phrases (the log's 5 %) whichever path answered.
    const add = (rows: string[], plain: number, faceted: number) => {
      for (const key of ['all', ...rows]) {
        const t = times.get(key) ?? { plain: [], faceted: [] };
        t.plain.push(plain);
        t.faceted.push(faceted);
        times.set(key, t);
      }
    };
    let countsDiffer = 0;
    let facetsDiffer = 0;
    let compared = 0;
    // Warm-up: the words' lexemes and the first statements' plans, untimed.
    for (const q of timed.slice(0, 20)) await run(searchRequest(q), true);
    for (const [i, q] of timed.entries()) {
      const request = searchRequest(q);
      // Each way `reps` times, interleaved (which goes first alternating), the request's median kept:
      // a machine shared with other work would otherwise decide single runs.
      const plainTimes: number[] = [];
      const facetedTimes: number[] = [];
      let plain = await run(request, false);
      let faceted = await run(request, true);
      for (let rep = 0; rep < reps; rep++) {
        const first = (i + rep) % 2 === 0;
        const a = await run(request, !first);
        const b = await run(request, first);
        [plain, faceted] = first ? [a, b] : [b, a];
        plainTimes.push(plain.t);
        facetedTimes.push(faceted.t);
      }
      add(
        q.query.startsWith('"') ? [plain.path, 'phrases'] : [plain.path],
        median(plainTimes),
        median(facetedTimes),
      );
      if (plain.r.count !== faceted.r.count) countsDiffer++;
      // Every 8th request answered by the index: its facets against PostgreSQL's (untimed).
      if (faceted.path === 'index' && i % 8 === 0) {
        compared++;
        const exact = await searchSounds(catalogue, { ...request, facets }, unbounded);
        if (JSON.stringify(exact.facets) !== JSON.stringify(faceted.r.facets)) {
          facetsDiffer++;
          if (process.env.FACETS_DEBUG)
            for (const name of facetNames) {
              const x = JSON.stringify(exact.facets?.[name]);
              const y = JSON.stringify(faceted.r.facets?.[name]);
              if (x !== y) console.log('\n', JSON.stringify(request), name, '\n  db', x, '\n  ix', y);
            }
        }
      }
      process.stdout.write(`\r  timed ${i + 1}/${timed.length}`);
    }
    process.stdout.write('\n');
    print(
      `${timed.length} distinct requests of the realistic log in stream order, one client, each without and with ` +
        `\`facets=${facetNames.join(',')}\` (limit ${facetLimit}), ${reps} times each way interleaved, the median of each request's runs. Load at the end ${load()} (2 cores, shared).`,
    );
    print();
    print(
      '| requests | n | without facets p50 / p99 ms | with facets p50 / p99 ms | ratio p50 | ratio p99 | target |',
    );
    print('|---|---:|---|---|---:|---:|---|');
    for (const [name, t] of times) {
      const p50 = quantile(t.faceted, 0.5) / quantile(t.plain, 0.5);
      const p99 = quantile(t.faceted, 0.99) / quantile(t.plain, 0.99);
      print(
        `| ${name} | ${t.plain.length} | ${ms(quantile(t.plain, 0.5))} / ${ms(quantile(t.plain, 0.99))} | ` +
          `${ms(quantile(t.faceted, 0.5))} / ${ms(quantile(t.faceted, 0.99))} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ` +
          `${p50 <= 2 && p99 <= 2 ? 'met' : 'not met'} (≤ 2×) |`,
      );
    }
    print();
    print(
      `- Counts with and without facets differ for ${countsDiffer} of ${timed.length} requests; the index's facets ` +
        `differ from PostgreSQL's grouped statement for ${facetsDiffer} of ${compared} requests compared.`,
    );
    print(
      '- The floor is the same search without facets, measured in the same run on the same requests: the target is a ratio to it.',
    );
    print();
    if (!process.argv.includes('--no-http')) {
      if (key) await httpRow(timed, key, print);
      else print('(No HTTP row: `--no-seed` gives no API key.)');
    }
    if (out) fs.appendFileSync(out, `${lines.join('\n')}\n\n`);
  } finally {
    await catalogue.close();
  }
}

if (arg('role', 'main') === 'api-server') await runApiBenchServer(dbUrl, apiBenchDataDir(dbUrl));
else
  await main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
