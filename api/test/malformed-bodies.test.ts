import fs from 'node:fs/promises';
import http from 'node:http';
import { fixture } from '@earshot/fixtures';
import { createUser } from '@earshot/services';
import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWebUser,
  bearerGrant,
  startTestServer,
  type TestServer,
  WEB_PASSWORD,
  WebClient,
} from './support/index.ts';

/**
 * Issue 31 item 8 and part of 11: requests that were 500s, or stored what they should refuse. Every
 * one is a 4xx saying what is wrong (a JSON `detail` from the API, an HTML page from the pages):
 * ids past the integer column on every page, multipart bodies cut before their closing boundary,
 * NUL characters in any text part, numbers past their column's range, overlong tags; and upload
 * file names kept as the UTF-8 the client sent.
 */

let s: TestServer;
let token: string;
let wav: Buffer;
const queue = recordingQueue();
const BOUNDARY = 'earshot-test-boundary';

beforeAll(async () => {
  s = await startTestServer(
    { OAUTH2_HTTPS_ONLY: 'false', UPLOAD_MAX_BYTES: '2000000' },
    { queue: queue.queue },
  );
  ({ accessToken: token } = await bearerGrant(s.catalogue.db, s.origin, 'alice'));
  wav = await fs.readFile(fixture('fmt-wav-16'));
  await addWebUser(s.catalogue.db, 'carol');
  await createUser(s.catalogue.db, {
    username: 'mona',
    email: 'mona@example.org',
    password: WEB_PASSWORD,
    isModerator: true,
  });
}, 600_000);
afterAll(() => s?.stop());

/** A POST sent byte for byte as given (fetch cannot send a malformed multipart body). */
function post(
  path: string,
  headers: Record<string, string>,
  body: Buffer | string,
): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, s.origin);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const multipartType = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` };
const bearer = () => ({ Authorization: `Bearer ${token}`, ...multipartType });

function textPart(name: string, value: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
}

function filePart(name: string, filename: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    data,
    Buffer.from('\r\n'),
  ]);
}

const CLOSE = `--${BOUNDARY}--\r\n`;

function detailOf(text: string): string {
  return JSON.stringify((JSON.parse(text) as { detail: unknown }).detail);
}

async function incomingFiles(): Promise<string[]> {
  return fs.readdir(`${s.dataDir}/uploads/incoming`).catch(() => []);
}

describe('a multipart body without its closing boundary', () => {
  it('is a 400 on the upload (file cut short), leaving no file', async () => {
    // The file part's bytes end where the body ends: no CRLF, no boundary.
    const body = Buffer.concat([Buffer.from(textPart('name', 'x')), filePart('audiofile', 'a.wav', wav)]);
    const r = await post('/apiv2/sounds/upload/', bearer(), body.subarray(0, body.length - 2));
    expect(r.status).toBe(400);
    expect(detailOf(r.text)).toMatch(/could not be read: Unexpected end of form/);
    expect(await incomingFiles()).toEqual([]);
  });

  it('is a 400 on the upload when it ends after the whole file part', async () => {
    const body = Buffer.concat([filePart('audiofile', 'a.wav', wav), Buffer.from(textPart('name', 'x'))]);
    const r = await post('/apiv2/sounds/upload/', bearer(), body);
    expect(r.status).toBe(400);
    expect(detailOf(r.text)).toMatch(/could not be read/);
    expect(await incomingFiles()).toEqual([]);
  });

  it('is a 400 on a route of text parameters and on the describe route', async () => {
    const text = `${textPart('query', 'drum')}${textPart('page_size', '3').slice(0, -2)}`;
    const search = await post(`/apiv2/search/?token=${s.seeded.apiKey}`, multipartType, text);
    expect(search.status).toBe(400);
    expect(detailOf(search.text)).toMatch(/could not be read/);
    const describe = await post('/apiv2/sounds/describe/', bearer(), text);
    expect(describe.status).toBe(400);
  });

  it('is a 400 page on the web upload, leaving no file', async () => {
    const browser = new WebClient(s.origin);
    await browser.signIn('carol');
    await browser.get('/upload/');
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const body = Buffer.concat([
      Buffer.from(textPart('csrf_token', browser.csrfToken)),
      filePart('audiofile', 'a.wav', wav),
    ]);
    const r = await post('/upload/', { Cookie: cookie, ...multipartType }, body.subarray(0, body.length - 2));
    expect(r.status).toBe(400);
    expect(r.type).toMatch(/text\/html/);
    expect(await incomingFiles()).toEqual([]);
  });
});

describe('a NUL character in a multipart text part', () => {
  it('is a 400 naming the part on the upload, with the file before or after it, leaving no file', async () => {
    for (const parts of [
      [filePart('audiofile', 'a.wav', wav), Buffer.from(textPart('description', 'a\u0000b'))],
      [Buffer.from(textPart('tags', 'a\u0000b c d')), filePart('audiofile', 'a.wav', wav)],
    ]) {
      const r = await post('/apiv2/sounds/upload/', bearer(), Buffer.concat([...parts, Buffer.from(CLOSE)]));
      expect(r.status).toBe(400);
      expect(detailOf(r.text)).toMatch(/parameter \\"(description|tags)\\" contains a NUL character/);
    }
    expect(await incomingFiles()).toEqual([]);
  });

  it('is a 400 on the edit and search routes sent as multipart', async () => {
    const body = `${textPart('description', 'x\u0000y')}${CLOSE}`;
    const edit = await post(`/apiv2/sounds/${s.seeded.ids.bd_808}/edit/`, bearer(), body);
    expect(edit.status).toBe(400);
    expect(detailOf(edit.text)).toMatch(/NUL/);
    const search = await post(
      `/apiv2/search/?token=${s.seeded.apiKey}`,
      multipartType,
      `${textPart('query', 'x\u0000y')}${CLOSE}`,
    );
    expect(search.status).toBe(400);
    expect(detailOf(search.text)).toMatch(/query.*NUL/);
  });
});

describe('a multipart part without a name', () => {
  it('is a 400 saying so, as a text part or a file part, leaving no file', async () => {
    const nameless = `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n`;
    const namelessFile = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; filename="a.wav"\r\n\r\n`),
      wav,
      Buffer.from('\r\n'),
    ]);
    for (const [path, body] of [
      [
        '/apiv2/sounds/upload/',
        Buffer.concat([filePart('audiofile', 'a.wav', wav), Buffer.from(nameless + CLOSE)]),
      ],
      ['/apiv2/sounds/upload/', Buffer.concat([namelessFile, Buffer.from(CLOSE)])],
      [`/apiv2/sounds/${s.seeded.ids.bd_808}/edit/`, Buffer.from(nameless + CLOSE)],
    ] as const) {
      const r = await post(path, bearer(), body);
      expect(r.status).toBe(400);
      expect(detailOf(r.text)).toMatch(/has no name/);
    }
    expect(await incomingFiles()).toEqual([]);
  });
});

describe('description numbers and lengths past what is stored', () => {
  const edit = (fields: string) =>
    post(
      `/apiv2/sounds/${s.seeded.ids.bd_808}/edit/`,
      { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      fields,
    );

  it.each(['41.3,2.1,32768', '41.3,2.1,99999999999'])(
    'a geotag zoom past the smallint column (%s) is a 400 on the geotag',
    async (geotag) => {
      const r = await edit(`geotag=${geotag}`);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text)).toEqual({ detail: { geotag: ['Zoom must be at most 32767.'] } });
    },
  );

  it('the largest zoom the column holds is kept', async () => {
    expect((await edit('geotag=41.3,2.1,32767')).status).toBe(200);
  });

  it('a tag of 10,000 characters is a 400 on the tags; one of 100 is kept', async () => {
    const long = await edit(`tags=${'a'.repeat(10_000)} b c`);
    expect(long.status).toBe(400);
    expect(JSON.parse(long.text)).toEqual({
      detail: { tags: ['Ensure each tag has no more than 100 characters.'] },
    });
    expect((await edit(`tags=${'a'.repeat(100)} b c`)).status).toBe(200);
  });
});

describe('ids past the integer column on the pages', () => {
  const huge = ['2147483648', '99999999999'];

  it.each(huge)('are a 404 page on the pack, sound and download pages (%s)', async (id) => {
    const browser = new WebClient(s.origin);
    await browser.signIn('carol');
    for (const p of [
      `/people/alice/packs/${id}/`,
      `/people/alice/sounds/${id}/`,
      `/people/alice/sounds/${id}/download/`,
    ]) {
      const r = await browser.get(p);
      expect(r.status, p).toBe(404);
      expect(r.headers.get('content-type'), p).toMatch(/text\/html/);
    }
  });

  it.each(huge)('are a 404 page on the sound actions (%s)', async (id) => {
    const browser = new WebClient(s.origin);
    await browser.signIn('carol');
    await browser.get('/people/alice/');
    for (const action of ['rate', 'bookmark', 'comment']) {
      const r = await browser.post(`/people/alice/sounds/${id}/${action}/`, {
        rating: '5',
        comment: 'nice',
        name: 'x',
      });
      expect(r.status, action).toBe(404);
    }
  });

  it.each(huge)('are a 404 page on the moderation file route and a 400 in its form (%s)', async (id) => {
    const browser = new WebClient(s.origin);
    await browser.signIn('mona');
    const file = await browser.get(`/apiv2/moderation/sounds/${id}/preview-lq.mp3`);
    expect(file.status).toBe(404);
    await browser.get('/apiv2/moderation/');
    const form = await browser.post('/apiv2/moderation/', { sound_id: id, decision: 'approve' });
    expect(form.status).toBe(400);
  });
});

describe('upload file names', () => {
  it('are kept as the UTF-8 the client sent (a hand-made body and fetch’s FormData)', async () => {
    const names = ['Grabación ñandú 音.wav', 'Ünïcødé – café.flac'];
    const raw = Buffer.concat([filePart('audiofile', names[0], wav), Buffer.from(CLOSE)]);
    const first = await post('/apiv2/sounds/upload/', bearer(), raw);
    expect(first.status, first.text).toBe(200);
    expect(JSON.parse(first.text).filename).toBe(names[0]);
    const fd = new FormData();
    fd.append('audiofile', new Blob([await fs.readFile(fixture('fmt-flac-16'))]), names[1]);
    const second = await fetch(`${s.origin}/apiv2/sounds/upload/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: fd,
    });
    expect(second.status).toBe(200);
    expect(((await second.json()) as { filename: string }).filename).toBe(names[1]);
    const pending = await fetch(`${s.origin}/apiv2/sounds/pending_uploads/`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const listed = ((await pending.json()) as { pending_description: string[] }).pending_description;
    expect(listed).toEqual(expect.arrayContaining(names));
  });
});
