// Harvesting the public catalogue while a writer edits and adds sounds (issue 36's target): the
// changes feed (`/apiv2/changes/`, walked from the beginning, then followed until caught up) against
// paging the same set with `page` (`/apiv2/search/text/?sort=created_desc`, the contract's way), in
// the same run, on the same server, with the same writer going; and the same search walked by
// cursor (`cursor=*`, then `next`). The bare SQL keyset scan of the visible set is the floor. After
// the writer stops, the feed's harvest is followed to the end and compared with the catalogue: it
// must hold exactly the visible sounds with their current names.
//   npx earshot bench harvest [--sounds 100000] [--feed-page 1000] [--write-every 50] [--reseed]
// The API server runs in a child process on a database of its own (earshot_harvest_bench_<n>: the
// feed's migration must not reach the databases other benchmarks share).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAppDeps, startServer } from '@earshot/api';
import { createSound, editSound, openCatalogue } from '@earshot/catalogue';
import { setProcessingState } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { createApiCredential } from '@earshot/services';
import { sql } from 'kysely';
import pg from 'pg';
import {
  apiBenchDatabase,
  apiBenchDataDir,
  ensureApiBenchCatalogue,
  spawnApiBenchServer,
} from './api-bench-catalogue.ts';
import { arg } from './args.ts';

const sounds = Number(arg('sounds', '100000'));
const feedPage = Number(arg('feed-page', '5000'));
const writeEvery = Number(arg('write-every', '50'));
const role = arg('role', 'main');
const PREFIX = 'earshot_harvest_bench';
const { dbUrl } = apiBenchDatabase(sounds, PREFIX);
const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'harvest.md');
const FIELDS = 'id,name';

type Json = Record<string, any>;

/** Edits a visible sound's name or adds a public sound, one every `writeEvery` ms, until stopped. */
function startWriter(db: Parameters<typeof editSound>[0], userId: number) {
  let running = true;
  let writes = 0;
  const done = (async () => {
    for (let n = 0; running; n++) {
      const started = Date.now();
      if (n % 2 === 0) {
        await editSound(db, 1 + Math.floor(Math.random() * sounds), { name: `edited ${n}` });
      } else {
        const sound = await createSound(db, {
          userId,
          name: `added ${n}`,
          tags: ['harvest'],
          license: 'Creative Commons 0',
          originalFilename: `added-${n}.wav`,
          originalPath: `/bench/added-${process.pid}-${n}`,
          moderationState: 'ok',
        });
        await setProcessingState(db, sound.id, { state: 'Processed', progress: 1 });
      }
      writes++;
      await new Promise((r) => setTimeout(r, Math.max(0, writeEvery - (Date.now() - started))));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return writes;
    },
  };
}

async function getJson(url: string, key: string): Promise<Json> {
  const res = await fetch(url, { headers: { Authorization: `Token ${key}` } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/** Walks the feed from `first` until an answer is not full; applies each change to `harvest`. */
async function followFeed(first: string, key: string, harvest: Map<number, string>, progress: string) {
  let url = first;
  let requests = 0;
  for (;;) {
    const page = await getJson(url, key);
    requests++;
    for (const change of page.changes as Json[]) {
      if (change.sound) harvest.set(change.id, change.sound.name);
      else harvest.delete(change.id);
    }
    process.stdout.write(`\r  ${progress}: ${harvest.size} sounds, ${requests} requests`);
    if (!page.more) {
      process.stdout.write('\n');
      return { requests, next: page.next as string };
    }
    url = page.next;
  }
}

/**
 * Waits until the server is ready and answers text search from its index: both walks then meet the
 * server in its steady state (the index builds in the server's process at start, and a walk run
 * beside that build would pay for it).
 */
async function untilSteady(origin: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    const ready = (await (await fetch(`${origin}/ready`)).json()) as Json;
    if (ready.status === 'ready' && (ready.text_search === undefined || ready.text_search === 'index')) break;
    process.stdout.write(
      `\r  waiting for the server's search index: ${Math.round((Date.now() - started) / 1000)} s`,
    );
    await new Promise((r) => setTimeout(r, 1000));
  }
  process.stdout.write(`\r  server steady after ${Math.round((Date.now() - started) / 1000)} s\n`);
}

/** The bench database exists and holds its sounds already (a later run: no seeding, no vectors). */
async function catalogueHolds(n: number): Promise<boolean> {
  if (process.argv.includes('--reseed')) return false;
  const client = new pg.Client({ connectionString: dbUrl });
  try {
    await client.connect();
    const { rows } = await client.query('select count(*)::int as n from sounds');
    return rows[0].n >= n;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function main(): Promise<void> {
  const logger = createLogger('warn');
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: apiBenchDataDir(dbUrl) });
  const ready = await catalogueHolds(sounds);
  const key = ready
    ? undefined
    : await ensureApiBenchCatalogue(sounds, process.argv.includes('--reseed'), PREFIX);
  const catalogue = await openCatalogue({ config, logger, role: 'command' });
  const db = catalogue.db;
  // Nothing here is a similarity search: without vectors the server's similarity state loads at
  // once instead of building indexes beside the walks for minutes.
  await sql`delete from sound_similarity_vectors`.execute(db);
  const apiKey =
    key ??
    (
      await createApiCredential(db, {
        username: 'bench',
        name: 'harvest bench',
        redirectUri: 'http://x/',
        level: 'unlimited', // a load generator is not a client the standard limits are for
      })
    ).client_secret;
  const user = await sql<{ id: number }>`select id from users order by id limit 1`.execute(db);
  const server = spawnApiBenchServer(fileURLToPath(import.meta.url), sounds);
  const origin = await server.origin;
  await untilSteady(origin);
  const rows: Array<{ name: string; requests: number; seen: number; seconds: number; note: string }> = [];
  try {
    // Floor: the visible set straight from the database, by id in batches as large as the feed's.
    let t = performance.now();
    let floorSeen = 0;
    for (let after = 0; ; ) {
      const batch = await sql<{ id: number; name: string }>`select id, name from sounds
        where moderation_state = 'ok' and processing_state = 'Processed' and id > ${after}
        order by id limit ${feedPage}`.execute(db);
      floorSeen += batch.rows.length;
      if (batch.rows.length < feedPage) break;
      after = batch.rows[batch.rows.length - 1].id;
    }
    rows.push({
      name: 'floor: bare SQL keyset scan (no writer)',
      requests: Math.ceil(floorSeen / feedPage),
      seen: floorSeen,
      seconds: (performance.now() - t) / 1000,
      note: `${feedPage} rows a statement`,
    });

    const writer = startWriter(db, user.rows[0].id);
    const harvest = new Map<number, string>();
    t = performance.now();
    const walk = await followFeed(
      `${origin}/apiv2/changes/?page_size=${feedPage}&fields=${FIELDS}`,
      apiKey,
      harvest,
      'changes feed',
    );
    rows.push({
      name: `changes feed, page_size ${feedPage}, writer going`,
      requests: walk.requests,
      seen: harvest.size,
      seconds: (performance.now() - t) / 1000,
      note: 'from the beginning until caught up',
    });

    t = performance.now();
    const paged = new Map<number, number>();
    let pageRequests = 0;
    let url: string | null =
      `${origin}/apiv2/search/text/?query=&sort=created_desc&page_size=150&fields=${FIELDS}`;
    while (url) {
      const page = await getJson(url, apiKey);
      pageRequests++;
      for (const sound of page.results as Json[]) paged.set(sound.id, (paged.get(sound.id) ?? 0) + 1);
      process.stdout.write(`\r  paging with page: ${paged.size} sounds, ${pageRequests} requests`);
      url = page.next;
    }
    process.stdout.write('\n');
    const pageSeconds = (performance.now() - t) / 1000;

    // The same search walked by cursor (`cursor=*`, then `next`): each sound visible when the walk
    // began, and never removed (this writer removes none), must be seen exactly once.
    const before = await sql<{ id: number }>`select id from sounds
      where moderation_state = 'ok' and processing_state = 'Processed'`.execute(db);
    t = performance.now();
    const walked = new Map<number, number>();
    let walkRequests = 0;
    let firstPageMs = 0;
    let walkUrl: string | null =
      `${origin}/apiv2/search/text/?query=&sort=created_desc&page_size=150&fields=${FIELDS}&cursor=*`;
    while (walkUrl) {
      const page = await getJson(walkUrl, apiKey);
      if (walkRequests++ === 0) firstPageMs = performance.now() - t;
      for (const sound of page.results as Json[]) walked.set(sound.id, (walked.get(sound.id) ?? 0) + 1);
      process.stdout.write(`\r  walking by cursor: ${walked.size} sounds, ${walkRequests} requests`);
      walkUrl = page.next;
    }
    process.stdout.write('\n');
    const walkSeconds = (performance.now() - t) / 1000;
    const missedByWalk = before.rows.filter((r) => !walked.has(r.id)).length;
    const twiceByWalk = [...walked.values()].filter((n) => n > 1).length;
    const writes = await writer.stop();

    // Caught up after the writer stopped: the feed's harvest against the catalogue, exactly.
    const after = await followFeed(walk.next, apiKey, harvest, 'changes feed, catching up');
    const visible = await sql<{ id: number; name: string }>`select id, name from sounds
      where moderation_state = 'ok' and processing_state = 'Processed'`.execute(db);
    const wrong = visible.rows.filter((r) => harvest.get(r.id) !== r.name).length;
    const extra = harvest.size - visible.rows.length + wrong;
    const exact = wrong === 0 && harvest.size === visible.rows.length;
    const visibleIds = new Set(visible.rows.map((r) => r.id));
    const missedByPaging = [...visibleIds].filter((id) => !paged.has(id)).length;
    const twiceByPaging = [...paged.values()].filter((n) => n > 1).length;
    rows.push({
      name: 'paging with `page` (text search, created_desc, page_size 150), writer going',
      requests: pageRequests,
      seen: paged.size,
      seconds: pageSeconds,
      note: `missed ${missedByPaging} visible sounds, ${twiceByPaging} seen twice`,
    });
    rows.push({
      name: 'walking by cursor (text search, created_desc, page_size 150, `cursor=*`), writer going',
      requests: walkRequests,
      seen: walked.size,
      seconds: walkSeconds,
      note: `first page (freezes the order) ${Math.round(firstPageMs)} ms; of ${before.rows.length} visible at its start missed ${missedByWalk}, ${twiceByWalk} seen twice`,
    });
    const feedRow = rows[1];
    const ratio = pageSeconds / feedRow.seconds;
    const lines = [
      '# Harvest benchmark',
      '',
      `\`npx earshot bench harvest --sounds ${sounds} --feed-page ${feedPage} --write-every ${writeEvery}\``,
      '',
      `Run ${new Date().toISOString()}: ${sounds} synthetic sounds on the PostgreSQL server, the API server in a child process, one harvesting client (this process, requests one after the other), a writer in this process editing a random sound's name or adding a public sound every ${writeEvery} ms through the catalogue's repositories (${writes} writes during the two walks). ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} at the end; the machine is shared, so the ratio within the run is what counts.`,
      '',
      '| row | requests | sounds seen | wall s | sounds/s | note |',
      '|---|---:|---:|---:|---:|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.requests} | ${r.seen} | ${r.seconds.toFixed(2)} | ${Math.round(r.seen / r.seconds)} | ${r.note} |`,
      ),
      '',
      `- Changes feed vs paging with \`page\`: ${ratio.toFixed(1)}× faster (target ≥ 20×: ${ratio >= 20 ? 'met' : 'not met'}).`,
      `- After the writer stopped, the feed was followed ${after.requests} more request(s) to the end: the harvest holds ${harvest.size} sounds, the catalogue shows ${visible.rows.length}; ${wrong} with a wrong or missing name, ${Math.max(0, extra)} extra: ${exact ? 'exactly the visible set' : 'NOT the visible set'}.`,
      '',
    ];
    const text = lines.join('\n');
    console.log(`\n${text}`);
    fs.writeFileSync(resultsFile, text);
    console.log(`written ${path.relative(process.cwd(), resultsFile)}`);
  } finally {
    server.stop();
    await catalogue.close();
  }
}

/** The API server of the child process; similarity loads in the background (nothing here asks it). */
async function runServer(): Promise<void> {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: dbUrl,
    LOG_LEVEL: 'warn',
    DATA_DIR: apiBenchDataDir(dbUrl),
  });
  const logger = createLogger('silent');
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  const deps = await buildAppDeps({
    config,
    logger,
    catalogue,
    similarityRefreshMs: 0,
    similarityInBackground: true,
    similaritySnapshots: false,
  });
  const server = await startServer(deps);
  process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
}

if (role === 'api-server') await runServer();
else await main();
