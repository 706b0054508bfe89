import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fixture } from '@earshot/fixtures';
import { recordingQueue } from '@earshot/services/testing';
import FreesoundClient from 'freesound-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerGrant,
  chromiumAvailable,
  launchChromium,
  startTestServer,
  type TestServer,
} from './support/index.ts';

// Real clients' upload calls with a Bearer token. `freesound` (freesound.js) uploads from a
// browser (XMLHttpRequest + FormData); it only knows https://freesound.org, so the page is served
// at that address and its requests are relayed to this server. `freesound-client` (Node) sends its
// upload form as query parameters and no body at all (its bug): the server must still answer it
// with the contract's 400 and a detail, never a 401 or a 500.

type Json = Record<string, any>;
const require = createRequire(import.meta.url);
const withBrowser = chromiumAvailable();

let s: TestServer;
let token: string;
const queue = recordingQueue();

beforeAll(async () => {
  s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false' }, { queue: queue.queue });
  token = (await bearerGrant(s.catalogue.db, s.origin, 'client-user')).accessToken;
}, 120_000);
afterAll(() => s?.stop());

describe.skipIf(!withBrowser)('freesound.js in chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());

  it('uploads a described file and reads pending_uploads with its Bearer token', async () => {
    const page = await browser.newPage();
    const relayed: string[] = [];
    await page.route('https://freesound.org/**', async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/')
        return route.fulfill({ contentType: 'text/html', body: '<html><body></body></html>' });
      relayed.push(
        `${route.request().method()} ${url.pathname} ${route.request().headers().authorization ?? ''}`,
      );
      const response = await route.fetch({ url: `${s.origin}${url.pathname}${url.search}` });
      await route.fulfill({ response });
    });
    await page.goto('https://freesound.org/');
    await page.addScriptTag({ path: require.resolve('freesound/freesound.js') });
    const audio = (await fs.readFile(fixture('fmt-ogg-mono-22k'))).toString('base64');
    const outcome = (await page.evaluate(
      ({ audio, token }) =>
        new Promise((resolve) => {
          const fsjs = (globalThis as any).freesound;
          fsjs.setToken(token, 'oauth');
          const bytes = Uint8Array.from(atob(audio), (c) => c.charCodeAt(0));
          fsjs.upload(
            new Blob([bytes], { type: 'audio/ogg' }),
            'browser.ogg',
            {
              name: 'From a browser',
              bst_category: 'ss-n',
              tags: 'browser upload test',
              description: 'Sent by freesound.js.',
              license: 'Attribution NonCommercial',
            },
            (uploaded: unknown) =>
              fsjs.getPendingSounds(
                (pending: unknown) => resolve({ uploaded, pending }),
                (e: unknown) => resolve({ error: String(e) }),
              ),
            (e: unknown) => resolve({ error: String(e) }),
          );
        }),
      { audio, token },
    )) as Json;
    expect(outcome.error).toBeUndefined();
    expect(outcome.uploaded).toEqual({
      detail: 'Audio file successfully uploaded and described (now pending processing and moderation).',
      id: expect.any(Number),
    });
    expect(queue.submitted).toContain(outcome.uploaded.id);
    expect(outcome.pending.pending_processing.map((p: Json) => p.id)).toContain(outcome.uploaded.id);
    expect(relayed).toEqual([
      `POST /apiv2/sounds/upload/ Bearer ${token}`,
      `GET /apiv2/sounds/pending_uploads/ Bearer ${token}`,
    ]);
    const row = await s.catalogue.db
      .selectFrom('sounds')
      .select(['name', 'license', 'category_code', 'original_filename'])
      .where('id', '=', outcome.uploaded.id)
      .executeTakeFirst();
    expect(row).toEqual({
      name: 'From a browser',
      license: 'Attribution NonCommercial',
      category_code: 'ss-n',
      original_filename: 'browser.ogg',
    });
    await page.close();
  }, 60_000);
});

describe('freesound-client (Node)', () => {
  // Its upload() cannot reach any server: it puts the whole form, file bytes included, in the query
  // string and sends no body (Node's HTTP parser refuses such a request line before any handler).
  // Its other OAuth2 call on uploads, getPendingSounds(), works as it is.
  it('reads pending_uploads with its Bearer token', async () => {
    const client = new (FreesoundClient as unknown as new () => any)();
    client.uris.base = `${s.origin}/apiv2`;
    client.setToken(token, 'oauth');
    // Its OAuth check refuses to run outside a browser; the request itself is made with node-fetch.
    const g = globalThis as { window?: unknown };
    g.window = {};
    try {
      const pending = (await client.getPendingSounds()) as Json;
      expect(Object.keys(pending).sort()).toEqual([
        'pending_description',
        'pending_moderation',
        'pending_processing',
      ]);
      expect(pending.pending_processing.map((p: Json) => p.name)).toEqual(
        withBrowser ? ['From a browser'] : [],
      );
    } finally {
      delete g.window;
    }
  });
});
