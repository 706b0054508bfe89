import fs from 'node:fs/promises';
import { fixture } from '@earshot/fixtures';
import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadScriptUrl } from '../../src/web/assets.ts';
import { addWebUser, startTestServer, type TestServer, WebClient } from '../support/index.ts';

// The upload pages without JavaScript (black box over HTTP, real catalogue, real ffprobe on the
// fixture; the queue records what would be processed).

describe('upload, describe and pending pages', () => {
  let server: TestServer;
  const queue = recordingQueue();

  beforeAll(async () => {
    server = await startTestServer({ UPLOAD_MAX_BYTES: String(8 * 1024 * 1024) }, { queue: queue.queue });
    await addWebUser(server.catalogue.db, 'carol');
  }, 120_000);
  afterAll(() => server?.stop());

  async function signedIn(): Promise<WebClient> {
    const browser = new WebClient(server.origin);
    expect((await browser.signIn('carol')).status).toBe(303);
    return browser;
  }

  /** A browser without scripts posting the upload form (multipart, the token as a field). */
  async function postUpload(client: WebClient, file: Blob, name: string, token = client.csrfToken) {
    const form = new FormData();
    form.append('csrf_token', token);
    form.append('audiofile', file, name);
    return fetch(new URL('/upload/', server.origin), {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: form,
    });
  }

  const pendingFiles = async (client: WebClient): Promise<string[]> =>
    JSON.parse((await client.get('/upload/pending.json')).body).pending_description;

  it('sends a visitor to sign in and shows a signed-in user the form with its progress script', async () => {
    const visitor = await new WebClient(server.origin).get('/upload/');
    expect([visitor.status, visitor.headers.get('location')]).toEqual([
      302,
      '/apiv2/login/?next=%2Fupload%2F',
    ]);
    const carol = await signedIn();
    const page = await carol.get('/upload/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(page.body).toContain('<label for="audiofile">Audio file</label>');
    expect(page.body).toContain('aria-live="polite"');
    expect(page.body).toContain(`<script src="${uploadScriptUrl}" defer></script>`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = await fetch(new URL(uploadScriptUrl, server.origin));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toContain('xhr.upload.addEventListener');
  });

  it('refuses a form without the right token and keeps nothing', async () => {
    const carol = await signedIn();
    await carol.get('/upload/');
    const wav = new Blob([await fs.readFile(fixture('fmt-wav-16'))]);
    const res = await postUpload(carol, wav, 'fmt-wav-16.wav', 'not-the-token');
    expect(res.status).toBe(403);
    expect(await pendingFiles(carol)).toEqual([]);
  });

  it('refuses a file that is not audio with the reason on the form', async () => {
    const carol = await signedIn();
    await carol.get('/upload/');
    const res = await postUpload(carol, new Blob(['plain text, no audio at all']), 'notes.wav');
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('role="alert"');
    expect(body).toContain('Upload a sound');
    expect(await pendingFiles(carol)).toEqual([]);
  });

  it('upload → describe (a refused field first) → the pending page lists it in processing', async () => {
    const carol = await signedIn();
    await carol.get('/upload/');
    const wav = new Blob([await fs.readFile(fixture('fmt-wav-16'))]);
    const res = await postUpload(carol, wav, 'fmt-wav-16.wav');
    expect([res.status, res.headers.get('location')]).toEqual([303, '/upload/describe/?file=fmt-wav-16.wav']);
    expect(await pendingFiles(carol)).toEqual(['fmt-wav-16.wav']);

    expect((await carol.get('/upload/describe/?file=other.wav')).status).toBe(404);
    const form = await carol.get('/upload/describe/?file=fmt-wav-16.wav');
    expect(form.status).toBe(200);
    expect(form.body).toContain('<option value="fx-other">Sound effects: Other</option>');
    expect(form.body).toContain('value="fmt-wav-16"'); // the name defaults to the file's

    const fields = {
      upload_filename: 'fmt-wav-16.wav',
      name: 'Web tone',
      bst_category: 'fx-other',
      tags: 'only two',
      description: 'A tone.',
      license: 'Creative Commons 0',
      geotag: '',
      pack: '',
    };
    const refused = await carol.post('/upload/describe/', fields);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/id="tags-error">[^<]*3/);
    expect(refused.body).toContain('value="only two"'); // what was typed stays
    expect(refused.body).toContain('aria-invalid="true"');

    const described = await carol.post('/upload/describe/', { ...fields, tags: 'tone web test' });
    expect(described.status).toBe(303);
    const id = Number(/described=(\d+)$/.exec(described.headers.get('location') ?? '')?.[1]);
    expect(queue.submitted).toContain(id);
    const pending = await carol.get('/upload/pending/');
    expect(pending.body).toContain(`data-sound-id="${id}" data-section="processing"`);
    expect(pending.body).toContain('Web tone');
    expect(pending.body).toContain('<a href="">Refresh</a>');
    const json = JSON.parse((await carol.get('/upload/pending.json')).body);
    expect(json.pending_description).toEqual([]);
    expect(json.pending_processing.map((s: { id: number }) => s.id)).toEqual([id]);
  });
});
