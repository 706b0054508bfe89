import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fixture } from '@earshot/fixtures';
import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerGrant, startTestServer, type TestServer } from './support/index.ts';

// Black-box tests of upload, describe and pending uploads (API.md "Upload parameters", the
// uploaded sound lifecycle; UPSTREAM-FACTS.md §5 for the messages). The server is the real one on
// a seeded embedded catalogue; its pipeline side is the ProcessingQueue port's recording side
// (the round trip through the real pipeline is in uploads-pipeline.test.ts).

type Json = Record<string, any>;
const MAX_BYTES = 2_000_000;

let s: TestServer;
let token: string;
let apiKey: string;
const queue = recordingQueue();

beforeAll(async () => {
  s = await startTestServer(
    { OAUTH2_HTTPS_ONLY: 'false', UPLOAD_MAX_BYTES: String(MAX_BYTES) },
    { queue: queue.queue },
  );
  ({ accessToken: token, apiKey } = await bearerGrant(s.catalogue.db, s.origin, 'uploader'));
}, 120_000);
afterAll(() => s?.stop());

const DESCRIPTION = {
  name: 'Morning tone',
  bst_category: 'fx-el',
  tags: 'sine Test-Tone calm',
  description: 'A pure tone.',
  license: 'Attribution',
};

async function form(file: string | undefined, fields: Record<string, string> = {}, as?: string) {
  const fd = new FormData();
  if (file) fd.append('audiofile', new Blob([await fs.readFile(file)]), as ?? path.basename(file));
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fd;
}

async function upload(
  file: string | undefined,
  fields: Record<string, string> = {},
  options: { as?: string; auth?: string } = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${s.origin}/apiv2/sounds/upload/`, {
    method: 'POST',
    headers: { Authorization: options.auth ?? `Bearer ${token}` },
    body: await form(file, fields, options.as),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function call(method: string, url: string, params?: Record<string, string>, auth = `Bearer ${token}`) {
  const res = await fetch(`${s.origin}${url}`, {
    method,
    headers: { Authorization: auth },
    body: params ? new URLSearchParams(params) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

const pending = async () => (await call('GET', '/apiv2/sounds/pending_uploads/')).body;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs
    .readdir(path.join(s.dataDir, dir), { recursive: true, withFileTypes: true })
    .catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(s.dataDir, path.join(e.parentPath, e.name)));
}

const soundRow = (id: number) =>
  s.catalogue.db
    .selectFrom('sounds')
    .leftJoin('packs', 'packs.id', 'sounds.pack_id')
    .select([
      'sounds.name',
      'sounds.tags',
      'sounds.description',
      'sounds.license',
      'sounds.category',
      'sounds.subcategory',
      'sounds.category_code',
      'sounds.category_is_user_provided',
      'sounds.geotag_lat',
      'sounds.geotag_lon',
      'sounds.geotag_zoom',
      'sounds.original_filename',
      'sounds.original_path',
      'sounds.md5',
      'sounds.crc32',
      'sounds.processing_state',
      'sounds.moderation_state',
      'packs.name as pack',
    ])
    .where('sounds.id', '=', id)
    .executeTakeFirst();

describe('POST /apiv2/sounds/upload/ without a description', () => {
  it('keeps the file pending description: detail with its size, filename, listed in pending_description', async () => {
    const file = fixture('fmt-flac-16');
    const size = (await fs.stat(file)).size;
    const { status, body } = await upload(file);
    expect(status).toBe(200);
    expect(body).toEqual({
      detail: `Audio file successfully uploaded (${size} Bytes, now pending description).`,
      filename: 'fmt-flac-16.flac',
    });
    expect((await pending()).pending_description).toContain('fmt-flac-16.flac');
    expect(await filesUnder('uploads/incoming')).toEqual([]);
    const kept = await filesUnder('uploads/pending');
    expect(kept.some((f) => f.endsWith('.flac'))).toBe(true);
    expect(queue.submitted).toEqual([]);
  });

  it('a second file of the same name gets a name of its own', async () => {
    const { body } = await upload(fixture('fmt-ogg'), {}, { as: 'take.ogg' });
    expect(body.filename).toBe('take.ogg');
    const again = await upload(fixture('fmt-ogg-mono-22k'), {}, { as: 'take.ogg' });
    expect(again.body.filename).toBe('take (2).ogg');
    expect((await pending()).pending_description).toEqual(
      expect.arrayContaining(['take.ogg', 'take (2).ogg']),
    );
  });
});

describe('POST /apiv2/sounds/upload/ with a description', () => {
  it('creates the sound with every field, moves the file into place and queues it at once', async () => {
    const { status, body } = await upload(fixture('fmt-wav-16'), {
      ...DESCRIPTION,
      pack: 'Tones',
      geotag: '41.3851,2.1734,14',
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      detail: 'Audio file successfully uploaded and described (now pending processing and moderation).',
      id: expect.any(Number),
    });
    expect(queue.submitted).toContain(body.id);
    const row = await soundRow(body.id);
    expect(row).toMatchObject({
      name: 'Morning tone',
      tags: ['sine', 'test-tone', 'calm'],
      description: 'A pure tone.',
      license: 'Attribution',
      category: 'Sound effects',
      subcategory: 'Electronic / Design',
      category_code: 'fx-el',
      category_is_user_provided: true,
      geotag_lat: 41.3851,
      geotag_lon: 2.1734,
      geotag_zoom: 14,
      original_filename: 'fmt-wav-16.wav',
      // No original of its size in the catalogue: not hashed before answering. The pipeline's
      // probe fills the md5 and the CRC-32 (uploads-pipeline.test.ts).
      md5: null,
      crc32: null,
      processing_state: 'Queued',
      moderation_state: 'pending_moderation',
      pack: 'Tones',
    });
    const stored = await fs.readFile(path.join(s.dataDir, row?.original_path as string));
    expect(stored.equals(await fs.readFile(fixture('fmt-wav-16')))).toBe(true);
    expect(await filesUnder('uploads/incoming')).toEqual([]);
    // Not public yet: the sound instance is a 404, pending_processing lists it with its stage.
    expect((await call('GET', `/apiv2/sounds/${body.id}/`)).status).toBe(404);
    const entry = (await pending()).pending_processing.find((p: Json) => p.id === body.id);
    expect(entry).toEqual({
      id: body.id,
      name: 'Morning tone',
      tags: ['sine', 'test-tone', 'calm'],
      description: 'A pure tone.',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/),
      license: 'Attribution',
      processing_state: 'Queued',
      processing_stage: null,
      processing_percent: 0,
      processing_error: null,
    });
  });

  it('refuses the same file again, naming the sound that holds it', async () => {
    const first = await upload(fixture('fmt-mp3'), DESCRIPTION);
    expect(first.status).toBe(200);
    const again = await upload(fixture('fmt-mp3'), {}, { as: 'copy.mp3' });
    expect(again.status).toBe(400);
    expect(again.body.detail).toBe(
      `Sound could not be created because the uploaded file is already part of the catalogue (sound ${first.body.id}).`,
    );
    expect((await pending()).pending_description).not.toContain('copy.mp3');
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('a bad description is a 400 mapping each bad field to its problem; nothing is kept', async () => {
    const before = await s.catalogue.db
      .selectFrom('sounds')
      .select(s.catalogue.db.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const { status, body } = await upload(fixture('fmt-aif-16'), {
      name: 'x',
      bst_category: 'fx',
      tags: 'two tags',
      license: 'CC-BY',
      geotag: '41.3,2.1,5',
    });
    expect(status).toBe(400);
    expect(body).toEqual({
      detail: {
        description: ['This field is required.'],
        tags: ['You should add at least 3 tags...'],
        license: [
          "Invalid License, must be either 'Attribution', 'Attribution NonCommercial' or 'Creative Commons 0'.",
        ],
        bst_category: ['Invalid BST category, should be a valid Broad Sound Taxonomy subcategory code.'],
        geotag: ['Zoom must be at least 11.'],
      },
    });
    const geotags = [
      ['91,2,12', 'Latitude must be in the range [-90,90].'],
      ['41,181,12', 'Longitude must be in the range [-180,180].'],
      [
        'north,2,12',
        "Geotag should have the format 'float,float,integer' (for latitude, longitude and zoom respectively).",
      ],
    ];
    for (const [geotag, message] of geotags) {
      const bad = await upload(fixture('fmt-aif-16'), { ...DESCRIPTION, geotag });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toEqual({ geotag: [message] });
    }
    const tooMany = await upload(fixture('fmt-aif-16'), {
      ...DESCRIPTION,
      tags: Array.from({ length: 31 }, (_, i) => `t${i}`).join(' '),
    });
    expect(tooMany.body.detail).toEqual({
      tags: ['There can be maximum 30 tags, please select the most relevant ones!'],
    });
    const after = await s.catalogue.db
      .selectFrom('sounds')
      .select(s.catalogue.db.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });
});

describe('the duplicate rule, judged by size first', () => {
  // A user of its own: these uploads do not count against the others' strict rate limit.
  let auth: string;
  beforeAll(async () => {
    auth = `Bearer ${(await bearerGrant(s.catalogue.db, s.origin, 'twin-uploader')).accessToken}`;
  });
  /** A WAV fixture with one sample changed in its last frame: same size, other bytes. */
  async function variant(name: string, flip: number): Promise<string> {
    const bytes = await fs.readFile(fixture(name));
    bytes[bytes.length - 1 - flip] ^= 1;
    const dir = await fs.mkdtemp(path.join(s.dataDir, 'variant-'));
    const file = path.join(dir, `${name}.wav`);
    await fs.writeFile(file, bytes);
    return file;
  }
  const md5Of = async (file: string) =>
    createHash('md5')
      .update(await fs.readFile(file))
      .digest('hex');
  const sizeOf = async (file: string) => (await fs.stat(file)).size;

  it('a file of the size of an original, other bytes, is taken; both then carry their md5', async () => {
    const [a, b] = [await variant('bits-24', 0), await variant('bits-24', 2)];
    const first = await upload(a, DESCRIPTION, { auth });
    expect(first.status).toBe(200);
    expect((await soundRow(first.body.id))?.md5).toBeNull();
    const second = await upload(b, DESCRIPTION, { auth });
    expect(second.status).toBe(200);
    expect((await soundRow(first.body.id))?.md5).toBe(await md5Of(a));
    expect((await soundRow(second.body.id))?.md5).toBe(await md5Of(b));
    expect(await sizeOf(a)).toBe(await sizeOf(b));
  });

  it('of one file uploaded twice at once, exactly one is taken; the other is refused naming it', async () => {
    const file = await variant('bits-16', 0);
    const both = await Promise.all([
      upload(file, DESCRIPTION, { auth }),
      upload(file, DESCRIPTION, { auth }),
    ]);
    const taken = both.filter((r) => r.status === 200);
    expect(taken).toHaveLength(1);
    const refused = both.find((r) => r.status !== 200);
    expect(refused?.status).toBe(400);
    expect(refused?.body.detail).toBe(
      `Sound could not be created because the uploaded file is already part of the catalogue (sound ${taken[0].body.id}).`,
    );
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('a file kept pending beside an original of its size is hashed and kept; the bytes of the original are refused, leaving no file', async () => {
    const [a, b] = [await variant('bits-24', 4), await variant('bits-24', 6)];
    const sound = await upload(a, DESCRIPTION, { auth });
    expect(sound.status).toBe(200);
    const before = await filesUnder('uploads/pending');
    const kept = await upload(b, {}, { as: 'twin-size.wav', auth });
    expect(kept.status).toBe(200);
    const row = await s.catalogue.db
      .selectFrom('pending_uploads')
      .selectAll()
      .where('filename', '=', kept.body.filename)
      .executeTakeFirstOrThrow();
    // Hashed before the answer (an original of its size exists), so the probe need not.
    expect(row.md5).toBe(await md5Of(b));
    const same = await upload(a, {}, { as: 'same-bytes.wav', auth });
    expect(same.status).toBe(400);
    expect(same.body.detail).toBe(
      `Sound could not be created because the uploaded file is already part of the catalogue (sound ${sound.body.id}).`,
    );
    const after = await filesUnder('uploads/pending');
    expect(after.filter((f) => !before.includes(f))).toEqual([row.stored_path]);
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('a pending file whose twin became a sound meanwhile is refused when described, naming the sound', async () => {
    const file = await variant('fmt-wav-16', 4);
    const kept = await upload(file, {}, { auth });
    expect(kept.status).toBe(200);
    const sound = await upload(file, DESCRIPTION, { as: 'again.wav', auth });
    expect(sound.status).toBe(200);
    const described = await call(
      'POST',
      '/apiv2/sounds/describe/',
      { upload_filename: kept.body.filename, ...DESCRIPTION },
      auth,
    );
    expect(described.status).toBe(400);
    expect(described.body.detail).toBe(
      `Sound could not be created because the uploaded file is already part of the catalogue (sound ${sound.body.id}).`,
    );
    // Still pending: a refused description leaves the file where it was.
    const stillPending = await call('GET', '/apiv2/sounds/pending_uploads/', undefined, auth);
    expect(stillPending.body.pending_description).toContain(kept.body.filename);
  });
});

describe('files the upload refuses', () => {
  it.each([
    ['no audiofile part', undefined, undefined, 'No file was submitted.'],
    ['an empty file', 'bad-empty', undefined, 'The file is empty.'],
    [
      'a format we do not take (.txt)',
      'bad-unsupported-txt',
      undefined,
      'The file is not an audio format we accept',
    ],
    [
      'a format we do not take (.opus)',
      'bad-unsupported-opus',
      undefined,
      'The file is not an audio format we accept',
    ],
    ['random bytes named .wav (probe fails)', 'bad-random', undefined, 'The file is damaged or incomplete'],
    ['text named .flac', 'bad-text-named-flac', undefined, 'The file is damaged or incomplete'],
    ['mp3 named .wav', 'bad-mp3-named-wav', undefined, 'The file name extension does not match its content.'],
  ])('%s: 400 naming the audiofile', async (_what, name, as, message) => {
    const { status, body } = await upload(name ? fixture(name) : undefined, {}, { as });
    expect(status).toBe(400);
    expect(body.detail.audiofile[0]).toContain(message);
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('a file over 1 MiB is probed while it streams in; its length is still checked once whole', async () => {
    // The head of the stereo music fixture: 1.5 MB of a WAV whose header promises 10.5 MB.
    const music = await fs.readFile(fixture('music-mix-60s'));
    const dataAt = music.indexOf('data') + 8;
    const cut = Buffer.from(music.subarray(0, 1_500_000));
    const dir = await fs.mkdtemp(path.join(s.dataDir, 'made-'));
    await fs.writeFile(path.join(dir, 'cut.wav'), cut);
    const refused = await upload(path.join(dir, 'cut.wav'));
    expect(refused.status).toBe(400);
    expect(refused.body.detail.audiofile[0]).toContain('The file is damaged or incomplete');
    // The same bytes with an honest header are taken.
    cut.writeUInt32LE(cut.length - dataAt, dataAt - 4);
    cut.writeUInt32LE(cut.length - 8, 4);
    await fs.writeFile(path.join(dir, 'whole.wav'), cut);
    const taken = await upload(path.join(dir, 'whole.wav'));
    expect(taken.status).toBe(200);
    expect(taken.body.detail).toBe(
      'Audio file successfully uploaded (1500000 Bytes, now pending description).',
    );
    // No original of its size: kept pending without being hashed (its sound is judged when described).
    const row = await s.catalogue.db
      .selectFrom('pending_uploads')
      .select(['md5', 'crc32', 'filesize'])
      .where('filename', '=', taken.body.filename)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ md5: null, crc32: null, filesize: 1_500_000 });
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('a file over UPLOAD_MAX_BYTES is a 413, and nothing is left', async () => {
    const { status, body } = await upload(fixture('music-mix-60s'));
    expect(status).toBe(413);
    // Refused from its Content-Length before a byte is read (the body limit the route declares);
    // a chunked body is stopped by the form reader, which names the audiofile.
    // The limit in the terms it was configured in (UPLOAD_MAX_BYTES = 2,000,000 bytes, 1.9 MB).
    expect(body.detail).toBe(
      "The body is larger than the 1.9 MB 'audiofile' may hold plus 256 KB of other fields.",
    );
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('a body that is not multipart is a 400 saying how to send it', async () => {
    const res = await call('POST', '/apiv2/sounds/upload/', { name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.detail.audiofile[0]).toContain('multipart/form-data');
  });
});

describe('authentication and limits of the write resources', () => {
  it('an API key is refused with a detail; no credentials too', async () => {
    for (const auth of [`Token ${apiKey}`, '']) {
      const res = await upload(fixture('fmt-ogg'), {}, { auth });
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe('Authentication credentials were not provided.');
      const list = await call('GET', '/apiv2/sounds/pending_uploads/', undefined, auth);
      expect(list.status).toBe(401);
    }
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('upload, describe and edit count against the strict limit (30 per minute), pending_uploads the standard one', async () => {
    const describe = await call('POST', '/apiv2/sounds/describe/', { upload_filename: 'none.wav' });
    expect(describe.headers.get('x-ratelimit-limit')).toMatch(/^30\b/);
    const list = await call('GET', '/apiv2/sounds/pending_uploads/');
    expect(list.headers.get('x-ratelimit-limit')).toMatch(/^60\b/);
  });
});

describe('POST /apiv2/sounds/describe/', () => {
  it('describes a pending file: it becomes a queued sound and leaves pending_description', async () => {
    const uploaded = await upload(fixture('fmt-aiff-24'));
    const filename = uploaded.body.filename;
    const res = await call('POST', '/apiv2/sounds/describe/', { upload_filename: filename, ...DESCRIPTION });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      detail: 'Sound successfully described (now pending processing and moderation).',
      id: expect.any(Number),
    });
    expect(queue.submitted).toContain(res.body.id);
    expect((await pending()).pending_description).not.toContain(filename);
    const row = await soundRow(res.body.id);
    expect(row).toMatchObject({
      original_filename: filename,
      name: 'Morning tone',
      processing_state: 'Queued',
    });
    const stored = await fs.readFile(path.join(s.dataDir, row?.original_path as string));
    expect(stored.equals(await fs.readFile(fixture('fmt-aiff-24')))).toBe(true);
    // Not hashed at upload (no original of its size): the pipeline's probe takes both digests.
    expect(row).toMatchObject({ md5: null, crc32: null });
    expect((await filesUnder('uploads/pending')).some((f) => f.endsWith('.aiff'))).toBe(false);
    // Describing it again: it is no longer pending.
    const again = await call('POST', '/apiv2/sounds/describe/', {
      upload_filename: filename,
      ...DESCRIPTION,
    });
    expect(again.status).toBe(400);
    expect(again.body.detail).toEqual({
      upload_filename: [
        `Upload filename (${filename}) must match with a filename from 'Pending Uploads' resource.`,
      ],
    });
  });

  it('the required fields and upload_filename are checked together, and the file stays pending', async () => {
    const uploaded = await upload(fixture('fmt-m4a'));
    const res = await call('POST', '/apiv2/sounds/describe/', { tags: 'a b c' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual({
      upload_filename: ['This field is required.'],
      bst_category: ['This field is required.'],
      description: ['This field is required.'],
      license: ['This field is required.'],
    });
    const bad = await call('POST', '/apiv2/sounds/describe/', {
      upload_filename: uploaded.body.filename,
      ...DESCRIPTION,
      license: 'Public domain',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.detail)).toEqual(['license']);
    expect((await pending()).pending_description).toContain(uploaded.body.filename);
  });

  it('another user cannot describe my pending file', async () => {
    const uploaded = await upload(fixture('fmt-mp3-mono-48k'));
    const other = await bearerGrant(s.catalogue.db, s.origin, 'someone-else');
    const res = await call(
      'POST',
      '/apiv2/sounds/describe/',
      { upload_filename: uploaded.body.filename, ...DESCRIPTION },
      `Bearer ${other.accessToken}`,
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.detail)).toEqual(['upload_filename']);
  });
});

describe('concurrency and disconnects', () => {
  it('20 uploads at once: every one is kept, under 20 distinct names', async () => {
    // A credential of its own: 20 uploads fit its strict limit (30 a minute).
    const burst = await bearerGrant(s.catalogue.db, s.origin, 'burst');
    const listed = async () =>
      (await call('GET', '/apiv2/sounds/pending_uploads/', undefined, `Bearer ${burst.accessToken}`)).body
        .pending_description as string[];
    expect(await listed()).toEqual([]);
    const wav = await fs.readFile(fixture('sine-a4'));
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        // Distinct bytes per upload (one sample changed), one shared name.
        const bytes = Buffer.from(wav);
        bytes.writeInt16LE(i + 1, bytes.length - 2);
        const fd = new FormData();
        fd.append('audiofile', new Blob([bytes]), 'burst.wav');
        const res = await fetch(`${s.origin}/apiv2/sounds/upload/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${burst.accessToken}` },
          body: fd,
        });
        return { status: res.status, body: (await res.json()) as Json };
      }),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const names = results.map((r) => r.body.filename as string);
    expect(new Set(names).size).toBe(20);
    expect((await listed()).sort()).toEqual([...names].sort());
    expect(names).toContain('burst.wav');
    expect(await filesUnder('uploads/incoming')).toEqual([]);
  });

  it('a client that disconnects mid-upload leaves no file and no row', async () => {
    const gone = await bearerGrant(s.catalogue.db, s.origin, 'gone');
    const boundary = 'earshotboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="audiofile"; filename="cut.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    );
    const req = http.request(`${s.origin}/apiv2/sounds/upload/`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${gone.accessToken}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(head.length + 1_000_000),
      },
    });
    req.on('error', () => {});
    req.write(head);
    req.write(Buffer.alloc(300_000, 1));
    // Wait until the server has started writing the partial file, then go away.
    const deadline = Date.now() + 10_000;
    while ((await filesUnder('uploads/incoming')).length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await filesUnder('uploads/incoming')).length).toBe(1);
    req.destroy();
    while ((await filesUnder('uploads/incoming')).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await filesUnder('uploads/incoming')).toEqual([]);
    const after = await call(
      'GET',
      '/apiv2/sounds/pending_uploads/',
      undefined,
      `Bearer ${gone.accessToken}`,
    );
    expect(after.body).toEqual({ pending_description: [], pending_processing: [], pending_moderation: [] });
    const rows = await s.catalogue.db
      .selectFrom('pending_uploads')
      .select('id')
      .where('user_id', '=', gone.userId)
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('the images of sounds pending moderation', () => {
  it('are served to their uploader (OAuth2), and are a 404 to anyone else', async () => {
    const bob = await bearerGrant(s.catalogue.db, s.origin, 'bob');
    const list = await call('GET', '/apiv2/sounds/pending_uploads/', undefined, `Bearer ${bob.accessToken}`);
    expect(list.status).toBe(200);
    const entry = list.body.pending_moderation.find((e: Json) => e.id === s.seeded.ids.hat_sci);
    expect(entry, JSON.stringify(list.body)).toBeDefined();
    const images = entry.images as Record<string, string>;
    expect(Object.keys(images).sort()).toEqual(['spectral_l', 'spectral_m', 'waveform_l', 'waveform_m']);
    for (const [kind, url] of Object.entries(images)) {
      const own = await fetch(url, { headers: { Authorization: `Bearer ${bob.accessToken}` } });
      expect(own.status, `${kind} ${url}`).toBe(200);
      expect(own.headers.get('content-type')).toBe(kind.startsWith('waveform') ? 'image/png' : 'image/jpeg');
      expect(own.headers.get('cache-control')).toMatch(/private/);
      expect((await own.arrayBuffer()).byteLength).toBeGreaterThan(100);
      // Not the uploader, an API key (OAuth2 only, as pending_uploads) or nobody: as if it did not exist.
      for (const auth of [`Bearer ${token}`, `Token ${bob.apiKey}`, undefined]) {
        const other = await fetch(url, auth ? { headers: { Authorization: auth } } : {});
        expect(other.status, `${kind} with ${auth?.split(' ')[0] ?? 'nothing'}`).toBe(404);
        await other.arrayBuffer();
      }
    }
  });
});
