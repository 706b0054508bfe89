import fs from 'node:fs/promises';
import { fixture } from '@earshot/fixtures';
import {
  createApiCredential,
  createUser,
  OAuth2Service,
  startSignedInSession,
  startVisitorSession,
} from '@earshot/services';
import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerGrant } from '../support/bearer.ts';
import { SEED_SOUNDS, seedSamplePath } from '../support/seed.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { WEB_PASSWORD, WebClient } from '../support/web-client.ts';
import { fuzzBackends } from './backends.ts';
import type { Rng } from './rng.ts';
import { runFuzz } from './run.ts';
import { type OpenApiDocument, targetsFromOpenApi } from './targets.ts';
import { type AudioSample, WRITE_FAMILIES, type WriteWorld, writeRequest } from './write-families.ts';

/**
 * The write side's fuzz suite (issue 31), beside the read routes' one (fuzz.test.ts): seeded
 * requests over the routes that change things — upload with real audio, describe, edit, rate,
 * comment, bookmark, the bookmark categories and pending uploads, the OAuth2 token endpoint with
 * every grant and the authorize pages, the web forms in a signed-in session with its CSRF token
 * (sign-in, sign-up, sign-out, sound forms, upload pages, credentials, moderation), and version 1 —
 * with values valid enough that the handlers run, mixed with hostile ones. FUZZ_WRITE_REQUESTS sets
 * the count per backend, FUZZ_SEED the run, FUZZ_ONLY one request, FUZZ_BACKENDS=pglite the
 * embedded backend alone.
 */
const COUNT = Number(process.env.FUZZ_WRITE_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 31);
const ONLY = process.env.FUZZ_ONLY === undefined ? undefined : Number(process.env.FUZZ_ONLY);
const backends = await fuzzBackends();

/** Small real recordings of the fixtures (and one of the seed's), with broken ones among them. */
// Mostly WAV, which is judged from its header; the others need ffprobe, a process each.
const AUDIO = [
  'edge-1ms',
  'edge-1ms',
  'edge-1ms',
  'edge-1ms',
  'rate-8000',
  'rate-8000',
  'rate-8000',
  'rate-8000',
  'bits-8',
  'fmt-aiff-8',
  'fmt-ogg-mono-22k',
  'fmt-mp3',
  'bad-random',
  'bad-truncated-wav',
  'bad-text-named-flac',
  'bad-empty',
  'bad-mp3-named-wav',
];
const REDIRECT = 'https://app.example/callback';

describe.each(backends)('the write fuzz suite on $name', ({ env }) => {
  let s: TestServer;
  let drop: () => Promise<void> = async () => {};
  let world: WriteWorld;
  const queue = recordingQueue();

  beforeAll(async () => {
    const backend = await env();
    drop = backend.drop;
    s = await startTestServer(
      // Plain http here, so the OAuth2 endpoint and pages are reached; sign-up open, so its form is.
      { OAUTH2_HTTPS_ONLY: 'false', SIGNUP_ENABLED: 'true', UPLOAD_MAX_BYTES: '2000000', ...backend.env },
      {
        queue: queue.queue,
        // FUZZ_SERVER_LOG=1 prints the server's errors (with their stacks), to see why a request failed.
        ...(process.env.FUZZ_SERVER_LOG
          ? { log: (line: string) => void (/"level":(50|60)/.test(line) && process.stderr.write(line)) }
          : {}),
      },
    );
    const db = s.catalogue.db;
    const oauth2 = new OAuth2Service({ db });
    const writer = await bearerGrant(db, s.origin, 'alice', { level: 'unlimited' });
    const standard = await bearerGrant(db, s.origin, 'alice', { level: 'standard' });
    const readOnly = await bearerGrant(db, s.origin, 'alice', { level: 'unlimited', scope: 'read' });
    const app = await createApiCredential(db, {
      username: 'bob',
      name: 'Fuzzed application',
      redirectUri: REDIRECT,
      level: 'unlimited',
    });
    const carolId = await createUser(db, {
      username: 'carol',
      email: 'carol@example.org',
      password: WEB_PASSWORD,
      isModerator: true,
    });
    const carolApp = await createApiCredential(db, {
      username: 'carol',
      name: 'Carol app',
      redirectUri: REDIRECT,
    });
    // The moderator signs in through the form, as a person does; the upload page gives the form token.
    const browser = new WebClient(s.origin);
    expect((await browser.signIn('carol')).status).toBe(303);
    expect((await browser.get('/upload/')).status).toBe(200);
    const session = { cookie: browser.cookies.get('earshot_session') as string, csrf: browser.csrfToken };

    const audio: AudioSample[] = await Promise.all(
      [...AUDIO.map((name) => fixture(name)), seedSamplePath('elec_twip')].map(async (file) => ({
        name: file.slice(file.lastIndexOf('/') + 1),
        data: await fs.readFile(file),
      })),
    );
    // Files waiting for a description, the writer's (through the API) and the moderator's (the page).
    const pendingFiles: string[] = [];
    const webPending: string[] = [];
    const tone = await fs.readFile(fixture('rate-8000'));
    for (let i = 0; i < 16; i++) {
      const data = Buffer.from(tone);
      data.writeUInt32LE(0xfeed0000 + i, data.length - 4);
      const web = i % 4 === 3;
      const name = `${web ? 'web' : 'api'}-pending-${i}.wav`;
      const form = new FormData();
      form.append('audiofile', new Blob([data]), name);
      if (web) form.append('csrf_token', session.csrf);
      const res = await fetch(`${s.origin}${web ? '/upload/' : '/apiv2/sounds/upload/'}`, {
        method: 'POST',
        redirect: 'manual',
        headers: web
          ? { cookie: `earshot_session=${session.cookie}` }
          : { authorization: `Bearer ${writer.accessToken}` },
        body: form,
      });
      expect(res.status, await res.text()).toBe(web ? 303 : 200);
      (web ? webPending : pendingFiles).push(name);
    }
    const v1 = (await (await fetch(`${s.origin}/api/openapi.json`)).json()) as OpenApiDocument;
    const alice = s.seeded.userIds.alice;
    const code = async (rng?: Rng) => {
      const scope = rng ? rng.pick(['read', 'read write', 'write', undefined]) : undefined;
      const outcome = await oauth2.grant(alice, {
        client_id: app.client_id,
        response_type: 'code',
        ...(scope ? { scope } : {}),
      });
      if (outcome.kind !== 'redirect') throw new Error(`no code: ${JSON.stringify(outcome)}`);
      return new URL(outcome.redirectUrl).searchParams.get('code') as string;
    };
    world = {
      valid: {
        soundIds: Object.values(s.seeded.ids),
        packIds: [s.seeded.packId],
        usernames: ['alice', 'bob', 'carol', 'nobody'],
        clientIds: [app.client_id],
      },
      ownSoundIds: SEED_SOUNDS.filter((x) => x.user === 'alice').map((x) => s.seeded.ids[x.sample]),
      pendingSoundIds: SEED_SOUNDS.filter((x) => x.pending).map((x) => s.seeded.ids[x.sample]),
      apiKey: writer.apiKey,
      standardApiKey: standard.apiKey,
      tokens: { writer: writer.accessToken, standard: standard.accessToken, readOnly: readOnly.accessToken },
      client: { id: app.client_id, secret: app.client_secret, redirectUri: REDIRECT },
      pendingFiles,
      web: {
        session,
        username: 'carol',
        password: WEB_PASSWORD,
        clientId: carolApp.client_id,
        pendingFiles: webPending,
      },
      audio,
      v1Targets: targetsFromOpenApi(v1),
      fresh: {
        code,
        refreshToken: async () => {
          const answer = await oauth2.exchangeCode({
            client_id: app.client_id,
            client_secret: app.client_secret,
            code: await code(),
          });
          return answer.body.refresh_token as string;
        },
        visitor: async () => {
          const visitor = await startVisitorSession(db);
          return { cookie: visitor.id, csrf: visitor.csrfToken };
        },
        signedIn: async () => {
          const signedIn = await startSignedInSession(db, carolId, undefined);
          return { cookie: signedIn.id, csrf: signedIn.csrfToken };
        },
      },
    };
  }, 600_000);
  afterAll(async () => {
    await s?.stop();
    await drop();
  });

  it(`answers ${ONLY === undefined ? COUNT : 1} seeded write requests with no 5xx, every 4xx explained, nothing leaked`, async () => {
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const uncaught: string[] = [];
    const onUncaught = (err: Error) => uncaught.push(err.stack ?? String(err));
    process.on('uncaughtException', onUncaught);
    const result = await runFuzz({
      origin: s.origin,
      seed: SEED,
      count: COUNT,
      only: ONLY,
      targets: [],
      generate: (index) => writeRequest(SEED, index, world),
      // The seed's key is never sent, so it must never come back; nor the data folder's path.
      secrets: [s.seeded.apiKey, s.dataDir],
      onProgress: (done, failures) =>
        process.stderr.write(
          `write fuzz seed ${SEED}: ${done}/${COUNT} sent, ${failures} failing, ${Math.round((Date.now() - started) / 1000)} s\n`,
        ),
    });
    process.off('uncaughtException', onUncaught);
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stderr.write(
      `write fuzz seed ${SEED}: ${result.sent} requests in ${seconds} s\n${Object.entries(result.byFamily)
        .map(([family, statuses]) => {
          const n = Object.values(statuses).reduce((a, b) => a + b, 0);
          const ms = Math.round((result.msByFamily[family] ?? 0) / n);
          return `  ${family.padEnd(32)} ${String(n).padStart(5)} ${String(ms).padStart(5)} ms  ${JSON.stringify(statuses)}`;
        })
        .join('\n')}\n`,
    );
    expect(uncaught, 'uncaught exceptions during the run').toEqual([]);
    expect(result.failures.slice(0, 30).join('\n\n'), `${result.failures.length} failing requests`).toBe('');
    // No request left unanswered (a reset or a timeout is status 0).
    expect(result.byStatus[0] ?? 0, 'requests without an answer').toBe(0);
    // Alive at the end: a plain request and a write both still answer.
    const alive = await fetch(`${s.origin}/apiv2/sounds/${s.seeded.ids.bd_808}/?token=${world.apiKey}`);
    expect(alive.status).toBe(200);
    const pending = await fetch(`${s.origin}/apiv2/sounds/pending_uploads/`, {
      headers: { authorization: `Bearer ${world.tokens.writer}` },
    });
    expect(pending.status).toBe(200);
    if (ONLY !== undefined) return;
    // Reached, not just knocked on: every family had requests answered with success, and uploads
    // went through to the processing queue.
    for (const family of WRITE_FAMILIES) {
      const statuses = result.byFamily[family] ?? {};
      const succeeded = Object.entries(statuses)
        .filter(([status]) => Number(status) >= 200 && Number(status) < 400)
        .reduce((sum, [, n]) => sum + n, 0);
      expect(succeeded, `${family}: answered with success`).toBeGreaterThan(0);
    }
    expect(queue.submitted.length, 'described uploads queued for processing').toBeGreaterThan(0);
    expect(process.memoryUsage().rss - before).toBeLessThan(600 * 1024 * 1024);
  }, 1_200_000);
});
