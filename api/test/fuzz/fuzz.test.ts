import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webRoutes } from '../../src/web/routes.ts';
import { bearerGrant } from '../support/bearer.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fuzzBackends } from './backends.ts';
import { runFuzz } from './run.ts';
import { type FuzzTarget, type OpenApiDocument, targetsFromOpenApi, targetsFromRouter } from './targets.ts';

/**
 * The standing fuzz suite (issue 19): seeded requests mixing valid and hostile values over every
 * route the server declares. FUZZ_REQUESTS sets the count per backend (CI default below),
 * FUZZ_SEED the run (default: fixed, so CI is reproducible; any failure prints how to replay it),
 * FUZZ_ONLY one request of the run.
 */
const COUNT = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 19);
const ONLY = process.env.FUZZ_ONLY === undefined ? undefined : Number(process.env.FUZZ_ONLY);
const backends = await fuzzBackends();

describe.each(backends)('the fuzz suite on $name', ({ env }) => {
  let s: TestServer;
  let drop: () => Promise<void> = async () => {};
  let targets: FuzzTarget[];
  let creds: { apiKey: string; accessToken: string };

  beforeAll(async () => {
    const backend = await env();
    drop = backend.drop;
    // Plain http here: OAuth2 over http is allowed so the token endpoint and the pages are reached.
    s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false', ...backend.env });
    const grant = await bearerGrant(s.catalogue.db, s.origin, 'bob', { level: 'unlimited' });
    creds = { apiKey: grant.apiKey, accessToken: grant.accessToken };
    const documents = await Promise.all(
      ['/apiv2/openapi.json', '/api/openapi.json'].map(
        async (p) => (await fetch(`${s.origin}${p}`)).json() as Promise<OpenApiDocument>,
      ),
    );
    targets = [
      ...documents.flatMap((d) => targetsFromOpenApi(d)),
      ...(s.deps.web ? targetsFromRouter(webRoutes(s.deps.web)) : []),
    ];
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    await drop();
  });

  it('covers every declared route: version 2, version 1, media, OAuth2 and the pages', () => {
    const paths = new Set(targets.map((t) => t.path));
    for (const p of [
      '/apiv2/sounds/{sound_id}/',
      '/api/sounds/search/',
      '/apiv2/oauth2/access_token/',
      '/apiv2/login/',
    ])
      expect(paths, p).toContain(p);
    expect([...paths].some((p) => p.startsWith('/media/'))).toBe(true);
    expect(targets.length).toBeGreaterThan(60);
  });

  it(`answers ${ONLY === undefined ? COUNT : 1} seeded requests with no 5xx, every 4xx explained, nothing leaked`, async () => {
    const before = process.memoryUsage().rss;
    const started = Date.now();
    // An 'error' event nobody listens to would end a real server: the suite fails on one too.
    const uncaught: string[] = [];
    const onUncaught = (err: Error) => uncaught.push(err.stack ?? String(err));
    process.on('uncaughtException', onUncaught);
    const result = await runFuzz({
      origin: s.origin,
      seed: SEED,
      count: COUNT,
      only: ONLY,
      targets,
      valid: {
        soundIds: Object.values(s.seeded.ids),
        packIds: [s.seeded.packId],
        usernames: ['alice', 'bob', 'nobody'],
        clientIds: [s.seeded.clientId],
      },
      creds,
      // The seed's own key is never sent, so it must never come back; nor the data folder's path.
      secrets: [s.seeded.apiKey, s.dataDir],
      onProgress: (done, failures) =>
        process.stderr.write(
          `fuzz seed ${SEED}: ${done}/${COUNT} sent, ${failures} failing, ${Math.round((Date.now() - started) / 1000)} s\n`,
        ),
    });
    process.off('uncaughtException', onUncaught);
    process.stderr.write(`fuzz seed ${SEED}: statuses ${JSON.stringify(result.byStatus)}\n`);
    expect(uncaught, 'uncaught exceptions during the run').toEqual([]);
    expect(result.failures.slice(0, 20).join('\n\n'), `${result.failures.length} failing requests`).toBe('');
    // Alive at the end: a plain request still answers.
    const alive = await fetch(`${s.origin}/apiv2/sounds/${s.seeded.ids.bd_808}/?token=${creds.apiKey}`);
    expect(alive.status).toBe(200);
    // Memory bounded: the run may fill caches (bounded) but not grow without limit.
    expect(process.memoryUsage().rss - before).toBeLessThan(600 * 1024 * 1024);
  }, 900_000);
});
