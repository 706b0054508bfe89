import fs from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, silenceFlac, synth, understateFlacLength } from '@earshot/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerGrant } from '../support/bearer.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

/**
 * Decompression bombs against the whole service as `npm start` runs it (embedded catalogue,
 * in-process pipeline, real ffmpeg): an hour of silence is 42 KB of FLAC and 635 MB as the mono
 * signal processing holds. Each is refused, or fails its processing, with the server process's
 * peak memory no more than 256 MB over what it was before (read from /proc: the process is a child).
 */

type Json = Record<string, any>;
const BUDGET = 256 * 1024 ** 2;
/**
 * A sound within the limit is processed whole: processing holds about 35 MB per minute of sound
 * (`earshot analyze` of 6.5 min of silence peaks 225 MB above a 3 s sound), so about 250 MB at
 * the 7-min limit, plus the slack of a garbage-collected heap. What the limit promises is that
 * bound, twice a bomb's budget, however long the file says it is.
 */
const WITHIN_LIMIT_BUDGET = 2 * BUDGET;

let s: ServeProcess;
let token: string;
let apiKey: string;
let work: string;
let hour: string;
let lying: string;

beforeAll(async () => {
  work = makeTempDir('earshot-bombs-');
  hour = silenceFlac(path.join(work, 'hour.flac'), 3600);
  lying = path.join(work, 'lying.flac');
  await fs.copyFile(hour, lying);
  understateFlacLength(lying, 10);
  s = await startServeProcess();
  ({ accessToken: token, apiKey } = await bearerGrant(s.catalogue.db, s.origin, 'bomber'));
  // Warm up what the first sound and the first clip load (analysis code, decoders, threads), so
  // that what is measured below is what a bomb costs, not what any first request costs.
  const tone = synth(path.join(work, 'tone.flac'), 'sine=f=440:d=3');
  const { id } = await upload(tone, 'tone.flac', DESCRIPTION);
  await waitFor((p) => p.pending_moderation.some((e: Json) => e.id === id));
  expect((await contentSearch(tone)).status).toBe(200);
}, 240_000);
afterAll(async () => {
  await s?.stop();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

const DESCRIPTION = {
  bst_category: 'is-other',
  tags: 'long silence test',
  license: 'Creative Commons 0',
  description: 'Silence.',
};

async function post(route: string, file: string, name: string, fields: Record<string, string>, auth: string) {
  const form = new FormData();
  form.append(
    route.includes('upload') ? 'audiofile' : 'audio_file',
    new Blob([await fs.readFile(file)]),
    name,
  );
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const headers: Record<string, string> = auth ? { Authorization: auth } : {};
  const res = await fetch(`${s.origin}${route}`, { method: 'POST', headers, body: form });
  return { status: res.status, body: (await res.json()) as Json };
}

async function upload(file: string, name: string, fields: Record<string, string>): Promise<Json> {
  const res = await post('/apiv2/sounds/upload/', file, name, fields, `Bearer ${token}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

function contentSearch(file: string) {
  const route = `/apiv2/search/content/?token=${apiKey}`;
  return post(route, file, path.basename(file), { fields: 'id' }, '');
}

async function waitFor(done: (p: Json) => boolean, timeoutMs = 180_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A kept-alive connection the server closed as it was reused is the client's race, not an answer.
    const res = await fetch(`${s.origin}/apiv2/sounds/pending_uploads/`, {
      headers: { Authorization: `Bearer ${token}` },
    }).catch((err: unknown) => {
      if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
      return undefined;
    });
    const body = res && ((await res.json()) as Json);
    if (body && done(body)) return body;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(body)}\n${s.output()}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A field of the server's /proc status, in bytes. */
async function procStatus(field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await fs.readFile(`/proc/${s.pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${s.pid}/status`);
  return Number(match[1]) * 1024;
}

/**
 * Runs `work` and answers how far the server's peak resident memory rose above its resident memory
 * before it: the peak is reset first (clear_refs 5) so that no earlier peak hides the growth.
 */
async function peakGrowth(work: () => Promise<void>): Promise<number> {
  await fs.writeFile(`/proc/${s.pid}/clear_refs`, '5');
  const before = await procStatus('VmRSS');
  await work();
  return (await procStatus('VmHWM')) - before;
}

describe('decompression bombs (an hour of silence in 42 KB of FLAC)', () => {
  it('an upload of one is refused with a 400 naming the limit, before anything is decoded', async () => {
    const growth = await peakGrowth(async () => {
      for (const fields of [DESCRIPTION, {}]) {
        const res = await post('/apiv2/sounds/upload/', hour, 'hour.flac', fields, `Bearer ${token}`);
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.detail.audiofile[0]).toBe(
          'The sound is longer than the longest we take. It lasts 60 min; the limit is 7 min.',
        );
      }
    });
    expect(growth).toBeLessThanOrEqual(BUDGET);
    const pending = await waitFor(() => true);
    expect(pending.pending_description).toEqual([]);
  });

  it('one whose header says 10 s is taken, then fails processing with the reason, the decode stopped at what it stated', async () => {
    let failed: Json | undefined;
    const growth = await peakGrowth(async () => {
      const { id } = await upload(lying, 'lying.flac', DESCRIPTION);
      const pending = await waitFor((p) =>
        p.pending_processing.some((e: Json) => e.id === id && e.processing_state === 'Failed'),
      );
      failed = pending.pending_processing.find((e: Json) => e.id === id);
    });
    expect(failed?.processing_error).toBe(
      'The file is damaged or incomplete and cannot be decoded. Its header says it lasts 10 s but it holds more audio than that.',
    );
    expect(growth).toBeLessThanOrEqual(BUDGET);
  });

  it('one just within the limit (6.5 min of silence, 5 KB) is processed in memory the limit bounds', async () => {
    const within = silenceFlac(path.join(work, 'within.flac'), 390);
    let id = 0;
    const growth = await peakGrowth(async () => {
      ({ id } = await upload(within, 'within.flac', DESCRIPTION));
      await waitFor((p) => p.pending_moderation.some((e: Json) => e.id === id), 600_000);
    });
    expect(growth).toBeLessThanOrEqual(WITHIN_LIMIT_BUDGET);
  }, 660_000);

  it('as a content search audio_file (an API key suffices), only its first 30 s are decoded', async () => {
    const growth = await peakGrowth(async () => {
      const res = await contentSearch(hour);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.note).toMatch(/only its first 30 s were analyzed/);
    });
    expect(growth).toBeLessThanOrEqual(BUDGET);
  });
});
