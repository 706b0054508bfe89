import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * A change that another process commits (`npx earshot moderate …`) must be seen by the server's
 * very next request, whatever its caches held (sound records, rendered sounds, search answers,
 * filter id sets), and a search page never shows a hit it cannot show as a sound (null). In the
 * embedded mode the server hosts the database and the command connects to it through the host;
 * on the PostgreSQL server both connect to the server.
 */

const postgresUrl = await testService('postgres');
const BACKENDS = postgresUrl ? (['embedded', 'postgres'] as const) : (['embedded'] as const);

const MODERATE = new URL('./support/moderate-process.ts', import.meta.url);

type Json = Record<string, any>;

/** Runs the moderation in a separate process and resolves once that process has exited. */
function moderateInAnotherProcess(
  dataDir: string,
  soundId: number,
  state: string,
  databaseUrl?: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(MODERATE),
        dataDir,
        String(soundId),
        state,
        ...(databaseUrl ? [databaseUrl] : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 && out.includes('moderated')) resolve();
      else reject(new Error(`moderation process exited with ${code}:\n${out}`));
    });
  });
}

describe.each(BACKENDS)('%s: a write from another process is seen at once', (backend) => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let pending: number;

  beforeAll(async () => {
    if (backend === 'postgres') database = await createTestDatabase(postgresUrl as string);
    s = await startTestServer(database ? { DATABASE_URL: database.url } : {});
    pending = s.seeded.ids.hat_sci;
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });
  const moderate = (id: number, state: string) =>
    moderateInAnotherProcess(s.dataDir, id, state, database?.url);

  async function get(path: string): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${s.origin}${path}`, { headers: { Authorization: `Token ${s.seeded.apiKey}` } });
    return { status: res.status, body: (await res.json()) as Json };
  }

  const SEARCHES = [
    '/apiv2/search/text/?query=metal&fields=id,name',
    '/apiv2/search/text/?filter=tag:hat&fields=id,name',
    '/apiv2/search/text/?query=&fields=id&page_size=50',
    '/apiv2/search/?query=hat',
  ];

  /** Every search: which of them list the sound, after checking each page has no null result. */
  async function searchesListing(id: number): Promise<string[]> {
    const listing: string[] = [];
    for (const path of SEARCHES) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      const results = page.body.results as Array<Json | null>;
      expect(results, `${path}: ${JSON.stringify(page.body)}`).not.toContain(null);
      expect(page.body.count, path).toBeGreaterThanOrEqual(results.length);
      if (results.some((r) => r?.id === id)) listing.push(path);
    }
    return listing;
  }

  /** Asks twice, so the second answer can come from every cache the first one filled. */
  async function warm(id: number): Promise<void> {
    for (let i = 0; i < 2; i++) {
      await get(`/apiv2/sounds/${id}/`);
      await searchesListing(id);
    }
  }

  it('shows a sound approved by another process in the very next requests', async () => {
    await warm(pending);
    expect((await get(`/apiv2/sounds/${pending}/`)).status).toBe(404);
    expect(await searchesListing(pending)).toEqual([]);

    await moderate(pending, 'ok');

    const instance = await get(`/apiv2/sounds/${pending}/`);
    expect(instance.status, JSON.stringify(instance.body)).toBe(200);
    expect(instance.body.id).toBe(pending);
    expect(await searchesListing(pending)).toEqual(SEARCHES);
  }, 120_000);

  it('hides a sound another process rejects in the very next requests', async () => {
    const visible = s.seeded.ids.hat_cab;
    await warm(visible);
    expect((await get(`/apiv2/sounds/${visible}/`)).status).toBe(200);
    expect(await searchesListing(visible)).toEqual(SEARCHES);

    await moderate(visible, 'rejected');

    expect((await get(`/apiv2/sounds/${visible}/`)).status).toBe(404);
    expect(await searchesListing(visible)).toEqual([]);
  }, 120_000);
});
