// Web pages benchmark (issue 20): time to first byte of the sound page and the search page at
// `sounds` synthetic sounds (the API benchmarks' catalogue, database earshot_api_bench_<n>), against
// the floor of 50 ms. The server runs in a child process; this process asks one page at a
// time (a person's browser, not a load test), every request a different sound or search.
// The search page pages by cursor walk (issue 36): its first view starts one (the search's first
// 3,000 results stored) beside the faceted search, its "Next" reads the stored page beside the same
// faceted search; `page=2` (an old address, paged by number) is one faceted search alone, the cost
// of every search page before the walks, measured in the same run.
//   npx earshot bench web [--sounds 100000] [--pages 200] [--rounds 3]

import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { apiBenchDatabase, ensureApiBenchCatalogue, runApiBenchServer } from './api-bench-catalogue.ts';
import { arg } from './args.ts';

const sounds = Number(arg('sounds', '100000'));
const pages = Number(arg('pages', '200'));
const rounds = Number(arg('rounds', '3'));
const FLOOR_MS = 50;

/** The `rel="next"` links of the search pages that have a second page (the others have none). */
async function nextLinks(origin: string, paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const html = await (await fetch(`${origin}${p}`)).text();
    const href = /<a rel="next" href="([^"]+)"/.exec(html)?.[1];
    if (href) out.push(href.replace(/&amp;/g, '&'));
  }
  return out;
}

/** Milliseconds until the status line and headers arrive; the body is read to the end. */
function firstByte(url: string): Promise<{ ms: number; status: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get(url, { agent }, (res) => {
        const ms = performance.now() - started;
        res.resume();
        res.on('end', () => resolve({ ms, status: res.statusCode ?? 0 }));
      })
      .on('error', reject);
  });
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function serverChild(): Promise<{ origin: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--role', 'server', '--sounds', String(sounds)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) =>
      resolve({ origin: (JSON.parse(line) as { origin: string }).origin, stop: () => child.kill() }),
    );
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Distinct visible sounds (their page address) and their tags, found through the API. */
async function pickSounds(origin: string, key: string): Promise<Array<{ path: string; tags: string[] }>> {
  const picked = new Map<string, { path: string; tags: string[] }>();
  const step = Math.max(1, Math.floor(sounds / pages));
  for (let from = 1; picked.size < pages && from <= sounds * 2; from += step) {
    const q = new URLSearchParams({
      filter: `id:[${from} TO ${from + step}]`,
      fields: 'url,tags',
      page_size: '1',
    });
    const res = await fetch(`${origin}/apiv2/search/text/?${q}&token=${key}`);
    const body = (await res.json()) as { results?: Array<{ url: string; tags: string[] }> };
    for (const r of body.results ?? []) picked.set(r.url, { path: new URL(r.url).pathname, tags: r.tags });
  }
  return [...picked.values()];
}

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const key = await ensureApiBenchCatalogue(sounds, process.argv.includes('--reseed'));
  const server = await serverChild();
  try {
    const picked = await pickSounds(server.origin, key);
    const soundPaths = picked.map((s) => s.path);
    // A different search each time: the tags of the picked sounds, as words and as a tag facet.
    const searchPaths = picked.map((s, i) => {
      const tag = s.tags[i % Math.max(1, s.tags.length)] ?? 'sound';
      return i % 2
        ? `/search/?q=${encodeURIComponent(tag)}`
        : `/search/?tag=${encodeURIComponent(tag)}&sort=created_desc`;
    });
    // The second page of each search that has one: by number, and by the cursor of a first view
    // (asked untimed).
    const paged = (await nextLinks(server.origin, searchPaths)).map((link) =>
      link.replace(/&cursor=[^&]*$/, ''),
    );
    const byNumber = paged.map((p) => `${p}&page=2`);
    const rows = [
      { name: 'web sound page', paths: soundPaths },
      { name: 'web search page (first view: starts a walk)', paths: searchPaths },
      { name: 'web search page 2 by Next (cursor)', paths: [] as string[], next: true },
      { name: 'web search page 2 by number (page=2, as before the walks)', paths: byNumber },
      { name: 'web home page', paths: Array.from({ length: 20 }, () => '/') },
    ];
    // Warm-up: the first requests compile templates and fill the pool, as after any start.
    for (const p of [soundPaths[0], searchPaths[0], '/']) await firstByte(`${server.origin}${p}`);
    const results = new Map<string, { p50: number[]; p95: number[]; bad: number; n: number }>();
    for (let round = 1; round <= rounds; round++) {
      for (const row of rows) {
        // A fresh walk per round: the Next links of first views asked now, untimed.
        if (row.next) row.paths = await nextLinks(server.origin, paged);
        const times: number[] = [];
        let bad = 0;
        for (const p of row.paths) {
          const { ms, status } = await firstByte(`${server.origin}${p}`);
          if (status !== 200) bad++;
          times.push(ms);
        }
        const r = results.get(row.name) ?? { p50: [], p95: [], bad: 0, n: 0 };
        const s = stats(times);
        r.p50.push(s.p50);
        r.p95.push(s.p95);
        r.bad += bad;
        r.n = new Set(row.paths).size;
        results.set(row.name, r);
        process.stdout.write(`  round ${round}/${rounds} ${row.name}: p50 ${s.p50.toFixed(1)} ms\n`);
      }
    }
    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    console.log(
      `\nweb pages at ${sounds} sounds, ${rounds} rounds, one request at a time; load average ${load}`,
    );
    console.log(
      '| page | distinct pages | first byte p50 (median of rounds) | p95 | floor | p50 / floor | non-200 |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, r] of results) {
      const p50 = median(r.p50);
      console.log(
        `| ${name} | ${r.n} | ${p50.toFixed(1)} ms | ${median(r.p95).toFixed(1)} ms | ${FLOOR_MS} ms | ${(p50 / FLOOR_MS).toFixed(2)} | ${r.bad} |`,
      );
    }
  } finally {
    server.stop();
    agent.destroy();
  }
}

if (arg('role', 'main') === 'server')
  await runApiBenchServer(apiBenchDatabase(sounds).dbUrl, apiBenchDatabase(sounds).dataDir);
else await main();
