// The text index's memory in its worker threads (issue 33): for each thread count, a fresh process
// starts the API's ThreadedTextIndex on the bench catalogue, from the snapshot the API bench's
// server wrote in its data folder, answers the log's first distinct searches through it, and reports
// its resident memory. The floor is physical: the process before the index starts, plus the
// snapshot's bytes (the lists, columns and hashes any holder of the index holds once). The
// catalogue is seeded, and the snapshot built, when they are missing.
//   npx earshot bench index-memory [--sounds 1000000] [--threads 1,2] [--searches 1000]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { NO_CHANGE_FEED, prepareSearch } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { ThreadedTextIndex } from '@earshot/services';
import { apiBenchDatabase, apiBenchDataDir, ensureApiBenchCatalogue } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { loadAverage } from './load-and-quantiles.ts';
import { processStats } from './processes.ts';
import { firstAsked, queryLog, searchRequest } from './realistic-workload.ts';

const sounds = Number(arg('sounds', '1000000'));
const threadCounts = arg('threads', '1,2').split(',').map(Number);
const searches = Number(arg('searches', '1000'));
const child = arg('child', '');
const { dbUrl } = apiBenchDatabase(sounds);
const dataDir = apiBenchDataDir(dbUrl);
const snapshotFile = path.join(dataDir, 'search-index', 'posting-index.bin');
const MiB = 1024 * 1024;

interface Measured {
  threads: number;
  before: number;
  ready: number;
  afterSearches: number;
  readySeconds: number;
  answered: number;
}

async function measure(threads: number): Promise<Measured> {
  const { stream } = await queryLog(dbUrl);
  const asked = firstAsked(stream, searches).map((q) => prepareSearch(searchRequest(q)));
  const before = processStats(process.pid).rss;
  const started = performance.now();
  const index = new ThreadedTextIndex(NO_CHANGE_FEED, {
    databaseUrl: dbUrl,
    snapshotDir: dataDir,
    logger: createLogger('warn'),
    threads,
  }).start();
  while (!index.allReady()) await new Promise((resolve) => setTimeout(resolve, 50));
  const readySeconds = (performance.now() - started) / 1000;
  const ready = processStats(process.pid).rss;
  let answered = 0;
  // Four at a time, as a loaded API sends them: every thread searches and holds its scratch arrays.
  for (let i = 0; i < asked.length; i += 4) {
    const answers = await Promise.all(asked.slice(i, i + 4).map((search) => index.search(search)));
    answered += answers.filter(Boolean).length;
  }
  const afterSearches = processStats(process.pid).rss;
  await index.close();
  return { threads, before, ready, afterSearches, readySeconds, answered };
}

if (child) {
  process.stdout.write(`${JSON.stringify(await measure(Number(child)))}\n`);
  process.exit(0);
}

await ensureApiBenchCatalogue(sounds, false);
const runChild = (threads: number): Measured => {
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, process.argv[1], ...process.argv.slice(2), '--child', String(threads)],
    { encoding: 'utf8', maxBuffer: 16 * MiB },
  );
  return JSON.parse(out.trim().split('\n').at(-1) as string) as Measured;
};
if (!fs.existsSync(snapshotFile)) {
  // Every row starts from the snapshot, as an API process does after its first start.
  console.log('  no snapshot yet: one thread builds the index from the catalogue and writes it…');
  runChild(1);
}
const snapshotBytes = fs.statSync(snapshotFile).size;
console.log(
  `\n## Text index memory in its threads, ${sounds} sounds (${new Date().toISOString()}, load ${loadAverage()})\n\n` +
    `A fresh process per row; the snapshot (${(snapshotBytes / MiB).toFixed(0)} MiB) is the floor: what one copy of the index holds. ` +
    `Memory is the process's resident set (its threads included) after the first ${searches} distinct searches of the log.\n`,
);
console.log(
  '| threads | ready in s | RSS before MiB | RSS ready MiB | RSS after searches MiB | index MiB (after − before) | × the snapshot | answered |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const threads of threadCounts) {
  process.stderr.write(`  ${threads} thread(s)…\r`);
  const m = runChild(threads);
  const index = m.afterSearches - m.before;
  console.log(
    `| ${m.threads} | ${m.readySeconds.toFixed(1)} | ${(m.before / MiB).toFixed(0)} | ${(m.ready / MiB).toFixed(0)} | ${(m.afterSearches / MiB).toFixed(0)} | ${(index / MiB).toFixed(0)} | ${(index / snapshotBytes).toFixed(2)} | ${m.answered} of ${searches} |`,
  );
}
process.exit(0);
