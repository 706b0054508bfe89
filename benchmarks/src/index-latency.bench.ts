// The posting index's own time per search (issue 33): the distinct searches of the realistic log
// (realistic-workload.ts) in the order the stream first asks them, each answered by the index alone
// in this process (no HTTP, no record reads, no cache), after a pass that fills the clause terms.
// A search on the API's event loop held every request behind it this long; in its thread it holds
// the searches behind it.
//   npx earshot bench index-latency [--sounds 1000000] [--requests 3000] [--slowest 10] [--answers FILE] [--shared-memory]
// The index is read from the snapshot the API bench's server wrote in its data folder (built from the
// catalogue when there is none). `--answers FILE` writes every answer (count, ids, scores, groups),
// so two trees can be checked to answer alike. `--shared-memory` reads the snapshot into shared
// memory, as the API's index threads hold it.
import fs from 'node:fs';
import {
  type ClauseMemo,
  decodePostingIndex,
  loadPostingIndex,
  openCatalogue,
  type PostingIndexData,
  postingSearch,
  prepareSearch,
} from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { searchIndexSnapshotStore } from '@earshot/services';
import { apiBenchDatabase, apiBenchDataDir } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { loadAverage, quantile } from './load-and-quantiles.ts';
import { firstAsked, queryLog, searchRequest, type TextSearch } from './realistic-workload.ts';

const sounds = Number(arg('sounds', '1000000'));
const requests = Number(arg('requests', '3000'));
const slowest = Number(arg('slowest', '10'));
const answersFile = arg('answers', '');
const sharedMemory = process.argv.includes('--shared-memory');
const { dbUrl } = apiBenchDatabase(sounds);

const kindOf = (q: TextSearch) =>
  q.query.startsWith('"')
    ? 'phrase'
    : q.filter
      ? 'filtered + sorted'
      : q.groupByPack
        ? 'grouped'
        : q.query.includes(' ')
          ? 'plain, several words'
          : 'plain, one word';
const ms = (x: number) => x.toFixed(x < 10 ? 2 : 1);

async function main(): Promise<void> {
  const catalogue = await openCatalogue({
    config: loadConfig({ DATABASE_URL: dbUrl }),
    logger: createLogger('warn'),
    role: 'command',
    migrate: false,
  });
  try {
    const { stream } = await queryLog(dbUrl);
    const timed = firstAsked(stream, requests);
    const started = performance.now();
    const snapshot = await searchIndexSnapshotStore(apiBenchDataDir(dbUrl), { sharedMemory }).read();
    let index: PostingIndexData | undefined = snapshot && decodePostingIndex(snapshot)?.index;
    const source = index ? `its snapshot${sharedMemory ? ', in shared memory' : ''}` : 'the catalogue';
    index ??= await loadPostingIndex(catalogue.db, (n, total) =>
      process.stdout.write(`\r  building the posting index: ${n}/${total} sounds`),
    );
    console.log(
      `\n## Posting index time per search, ${sounds} sounds (${new Date().toISOString()}, load ${loadAverage()})\n\n` +
        `Index read from ${source} in ${((performance.now() - started) / 1000).toFixed(1)} s; ${timed.length} distinct searches of the log in stream order, one at a time.\n`,
    );
    const memo: ClauseMemo = new Map();
    const times = new Map<string, number[]>([['all', []]]);
    const each: { q: TextSearch; t: number; count: number }[] = [];
    const answers: unknown[] = [];
    // The first pass reads the clause terms (a statement each) and warms the code; the second is timed.
    for (let pass = 0; pass < 2; pass++) {
      for (const [i, q] of timed.entries()) {
        const search = prepareSearch(searchRequest(q));
        const t = performance.now();
        const answer = await postingSearch(catalogue.db, index, search, memo);
        const elapsed = performance.now() - t;
        if (pass === 0 || !answer) continue;
        for (const kind of ['all', kindOf(q)]) {
          const list = times.get(kind) ?? [];
          list.push(elapsed);
          times.set(kind, list);
        }
        each.push({ q, t: elapsed, count: answer.count });
        if (answersFile)
          answers.push({
            count: answer.count,
            ids: answer.ids,
            scores: answer.scores,
            groups: answer.packGroups,
          });
        if (i % 100 === 0) process.stdout.write(`\r  pass ${pass + 1}: ${i}/${timed.length}`);
      }
    }
    if (answersFile) fs.writeFileSync(answersFile, JSON.stringify(answers));
    console.log(`\r  ${each.length} of ${timed.length} answered by the index (load ${loadAverage()})\n`);
    console.log('| searches | n | p50 ms | p95 ms | p99 ms | max ms | mean ms |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const [kind, ts] of times) {
      const mean = ts.reduce((a, b) => a + b, 0) / ts.length;
      console.log(
        `| ${kind} | ${ts.length} | ${[0.5, 0.95, 0.99].map((p) => ms(quantile(ts, p))).join(' | ')} | ${ms(Math.max(...ts))} | ${ms(mean)} |`,
      );
    }
    console.log(`\nThe ${slowest} slowest:\n`);
    for (const { q, t, count } of each.sort((a, b) => b.t - a.t).slice(0, slowest))
      console.log(`- ${ms(t)} ms, ${count} matches: ${JSON.stringify(q)}`);
  } finally {
    await catalogue.close();
  }
}

await main();
process.exit(0);
