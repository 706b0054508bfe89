import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { fixture, fixtureEntry } from '@earshot/fixtures';
import { moderate, SoundStorage } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerGrant } from './support/bearer.ts';
import { type ServeProcess, startServeProcess } from './support/serve-process.ts';

// The uploaded sound lifecycle (API.md "Uploaded sound lifecycle") end to end through the real
// service: `earshot serve` with its in-process pipeline, real ffmpeg, the fixture formats.

type Json = Record<string, any>;
let s: ServeProcess;
let token: string;
const approved = new Map<string, number>();
const CLI_MAIN = new URL('../../cli/src/main.ts', import.meta.url).pathname;

/** `npx earshot …` against the running server's data folder (it joins the server's catalogue). */
function earshot(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: s.dataDir, LOG_LEVEL: 'error' };
  delete env.REDIS_URL;
  delete env.DATABASE_URL;
  return spawnSync(process.execPath, ['--import', 'tsx', CLI_MAIN, ...args], { env, encoding: 'utf8' });
}

beforeAll(async () => {
  s = await startServeProcess();
  token = (await bearerGrant(s.catalogue.db, s.origin, 'roundtrip')).accessToken;
}, 120_000);
afterAll(() => s?.stop());

const DESCRIPTION = { bst_category: 'is-other', tags: 'fixture format test', license: 'Creative Commons 0' };

async function upload(name: string, fields: Record<string, string>): Promise<Json> {
  const fd = new FormData();
  fd.append('audiofile', new Blob([await fs.readFile(fixture(name))]), path.basename(fixture(name)));
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  const res = await fetch(`${s.origin}/apiv2/sounds/upload/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: fd,
  });
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function get(url: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${s.origin}${url}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Polls pending_uploads until `done` holds (processing runs in the server process). */
async function waitFor(done: (p: Json) => boolean, seen: Json[] = [], timeoutMs = 240_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await get('/apiv2/sounds/pending_uploads/');
    seen.push(body);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(body)}\n${s.output()}`);
    // Once a second: the credential's standard limit is 60 requests a minute.
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const FORMATS = ['fmt-wav-16', 'fmt-aif-16', 'fmt-flac-16', 'fmt-ogg', 'fmt-mp3', 'fmt-m4a'];

describe('upload → describe → process → moderate → visible', () => {
  it('each fixture format goes through the pipeline to pending moderation, then is visible once approved', async () => {
    const ids = new Map<string, number>();
    for (const name of FORMATS.slice(1)) {
      const { id } = await upload(name, { ...DESCRIPTION, description: `The ${name} fixture.` });
      ids.set(name, id);
    }
    // One of them the two-step way: upload alone, then describe.
    const pendingFile = await upload(FORMATS[0], {});
    expect(pendingFile.filename).toBe('fmt-wav-16.wav');
    const listed = await get('/apiv2/sounds/pending_uploads/');
    expect(listed.body.pending_description).toEqual(['fmt-wav-16.wav']);
    const described = await fetch(`${s.origin}/apiv2/sounds/describe/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: new URLSearchParams({
        upload_filename: 'fmt-wav-16.wav',
        name: 'Two-step wav',
        ...DESCRIPTION,
        description: 'Described after upload.',
      }),
    });
    expect(described.status).toBe(200);
    ids.set(FORMATS[0], ((await described.json()) as Json).id);

    const seen: Json[] = [];
    const done = await waitFor((p) => p.pending_moderation.length === FORMATS.length, seen);
    expect(done.pending_description).toEqual([]);
    expect(done.pending_processing).toEqual([]);
    // While processing, entries said which stage they were in and how far they had got.
    const inFlight = seen.flatMap((p) => p.pending_processing as Json[]).filter((e) => e.processing_stage);
    expect(inFlight.length).toBeGreaterThan(0);
    for (const e of inFlight) {
      expect(['Queued', 'Processing']).toContain(e.processing_state);
      expect(e.processing_percent).toBeGreaterThanOrEqual(0);
      expect(e.processing_percent).toBeLessThanOrEqual(100);
    }
    const entry = done.pending_moderation.find((e: Json) => e.id === ids.get('fmt-wav-16'));
    expect(entry).toMatchObject({
      name: 'Two-step wav',
      tags: ['fixture', 'format', 'test'],
      license: 'Creative Commons 0',
      images: {
        waveform_m: expect.stringMatching(/^http:\/\//),
        spectral_l: expect.stringMatching(/^http:\/\//),
      },
    });

    // Not visible until a moderator approves; then the sound record shows the probed truth.
    const wavId = ids.get('fmt-wav-16') as number;
    expect((await get(`/apiv2/sounds/${wavId}/`)).status).toBe(404);
    await moderate(s.catalogue.db, [...ids.values()], 'approve');
    for (const [name, id] of ids) {
      const { status, body } = await get(
        `/apiv2/sounds/${id}/?fields=id,name,type,duration,samplerate,channels,md5,category_code,username`,
      );
      expect(status, name).toBe(200);
      const truth = fixtureEntry(name);
      // Not hashed at upload (no original of its size): the probe stage filled md5 and CRC-32.
      expect(body.md5).toBe(truth.md5);
      const digests = await s.catalogue.db
        .selectFrom('sounds')
        .select(['md5', 'crc32'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(digests).toEqual({ md5: truth.md5, crc32: crc32(await fs.readFile(fixture(name))) });
      expect(body.samplerate).toBe(truth.sampleRate);
      expect(body.duration).toBeCloseTo(truth.duration as number, 1);
      expect(body).toMatchObject({ id, username: 'roundtrip', category_code: 'is-other' });
    }
    const after = await get('/apiv2/sounds/pending_uploads/');
    expect(after.body.pending_moderation).toEqual([]);
    for (const [name, id] of ids) approved.set(name, id);
  }, 300_000);

  it('`earshot sounds delete` removes a sound and everything derived from it; only its owner’s', async () => {
    token = (await bearerGrant(s.catalogue.db, s.origin, 'roundtrip')).accessToken;
    const id = approved.get('fmt-flac-16') as number;
    const other = approved.get('fmt-ogg') as number;
    const db = s.catalogue.db;
    const n = (rows: unknown[]) => rows.length;
    const derived = async () => ({
      descriptors: n(
        await db.selectFrom('sound_descriptors').select('sound_id').where('sound_id', '=', id).execute(),
      ),
      vectors: n(
        await db
          .selectFrom('sound_similarity_vectors')
          .select('sound_id')
          .where('sound_id', '=', id)
          .execute(),
      ),
    });
    /** The ids similar to `other`, once the server's similarity state has them (it refreshes after changes). */
    const similarIds = async (until: (ids: number[]) => boolean) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { status, body } = await get(`/apiv2/sounds/${other}/similar/?fields=id&page_size=150`);
        const ids = status === 200 ? (body.results as Json[]).map((r) => r.id as number) : [];
        if (until(ids)) return ids;
        if (Date.now() > deadline) throw new Error(`similar: ${status} ${JSON.stringify(body)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    const folder = new SoundStorage(s.dataDir).soundDir(id);
    expect((await fs.readdir(folder)).length).toBeGreaterThan(1);
    const before = await derived();
    expect(before.descriptors).toBe(1);
    expect(before.vectors).toBeGreaterThan(0);
    expect(await similarIds((ids) => ids.includes(id))).toContain(id);

    const refused = earshot(['sounds', 'delete', String(id), '--user', 'someone']);
    expect(refused.status).not.toBe(0);
    expect((await get(`/apiv2/sounds/${id}/?fields=id`)).status).toBe(200);

    const done = earshot(['sounds', 'delete', String(id), '--user', 'roundtrip']);
    expect(done.stdout + done.stderr).toContain(`deleted sound ${id}`);
    expect(done.status).toBe(0);
    expect((await get(`/apiv2/sounds/${id}/?fields=id`)).status).toBe(404);
    const search = await get(`/apiv2/search/?filter=id:${id}&fields=id`);
    expect(search.body.results).toEqual([]);
    await expect(fs.stat(folder)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await derived()).toEqual({ descriptors: 0, vectors: 0 });
    // The similarity state follows the catalogue's change (refreshed within a few seconds).
    const afterIds = await similarIds((ids) => ids.length > 0 && !ids.includes(id));
    expect(afterIds).not.toContain(id);
    expect((await get(`/apiv2/sounds/${other}/?fields=id`)).status).toBe(200);
  }, 120_000);

  it('a file that probes but cannot be decoded ends Failed in pending_processing, with its reason', async () => {
    token = (await bearerGrant(s.catalogue.db, s.origin, 'roundtrip')).accessToken;
    const { id } = await upload('bad-truncated-mp3', { ...DESCRIPTION, description: 'Cut short.' });
    const done = await waitFor((p) =>
      p.pending_processing.some((e: Json) => e.id === id && e.processing_state === 'Failed'),
    );
    const entry = done.pending_processing.find((e: Json) => e.id === id);
    expect(entry.processing_error).toMatch(/damaged or incomplete/);
    expect(done.pending_moderation.map((e: Json) => e.id)).not.toContain(id);
  }, 300_000);
});
