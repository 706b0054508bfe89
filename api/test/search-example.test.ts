import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { analyzeFile, writeFramesFile } from '@earshot/core';
import { makeTempDir, synth } from '@earshot/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSamplePath } from './support/seed.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Black-box tests of search by example (issue 21): `analysis_file` (the contract's) and
 * `audio_file` (earshot's extension) on content and combined search, on a real server over the
 * seeded catalogue. The catalogue's analyses are the native Essentia extractor's; the examples are
 * the catalogue's own files, or earshot's analysis of the seed recordings and of clips cut from them.
 */

type Json = Record<string, any>;

let s: TestServer;
let tmp: string;

beforeAll(async () => {
  s = await startTestServer();
  tmp = makeTempDir('earshot-example-test-');
}, 120_000);
afterAll(async () => {
  await s?.stop();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const CONTENT = '/apiv2/search/content/';
const COMBINED = '/apiv2/search/combined/';

function url(p: string, query = ''): string {
  return `${s.origin}${p}?token=${s.seeded.apiKey}${query ? `&${query}` : ''}`;
}

/** A multipart POST: text parameters plus files (name → [bytes, file name]). */
async function search(
  p: string,
  params: Record<string, string>,
  files: Record<string, [Buffer | string, string]>,
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(params)) form.append(name, value);
  for (const [name, [data, fileName]] of Object.entries(files)) {
    form.append(name, new Blob([typeof data === 'string' ? Buffer.from(data) : data]), fileName);
  }
  return fetch(url(p), { method: 'POST', body: form });
}

async function ok(res: Response): Promise<Json> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function refused(res: Response, status: number, detail: RegExp): Promise<void> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(String(body.detail)).toMatch(detail);
}

const ids = (page: Json): number[] => page.results.map((r: Json) => r.id);

/** The catalogue's own analysis files of a sound, fetched through the API as a client would. */
async function statsFileOf(sample: string): Promise<Buffer> {
  const sound = await ok(await fetch(url(`/apiv2/sounds/${s.seeded.ids[sample]}/`, 'fields=analysis_files')));
  const stats = (sound.analysis_files as string[]).find((u) => u.includes('stats'));
  expect(stats).toBeDefined();
  const res = await fetch(`${stats}?token=${s.seeded.apiKey}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function variantBOf(sample: string): Promise<Buffer> {
  const analysis = await ok(await fetch(url(`/apiv2/sounds/${s.seeded.ids[sample]}/analysis/`)));
  return Buffer.from(JSON.stringify(analysis));
}

/** earshot's own frames file of a seed recording (what the pipeline writes for a sound). */
async function framesFileOf(sample: string): Promise<Buffer> {
  const result = await analyzeFile(seedSamplePath(sample), { frames: true });
  const file = path.join(tmp, `${sample}-frames.json`);
  await writeFramesFile(result.frames as NonNullable<typeof result.frames>, file);
  return fs.readFile(file);
}

/** A clip cut from a seed recording: its first 80 %, 3 dB quieter, re-encoded as MP3. */
function clipOf(sample: string): string {
  const source = seedSamplePath(sample);
  const duration = Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', source])
      .toString()
      .trim(),
  );
  const clip = path.join(tmp, `${sample}-clip.mp3`);
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-y', '-i', source, '-t', (duration * 0.8).toFixed(3)],
    ...['-af', 'volume=-3dB', '-c:a', 'libmp3lame', '-b:a', '128k', clip],
  ]);
  return clip;
}

const ANALYZED = ['bd_808', 'hat_cab', 'elec_wood', 'elec_twip', 'bd_klub'];

describe('analysis_file: the analysis of a catalogue sound finds that sound first', () => {
  it.each(ANALYZED)('variant-A statistics file of %s (content search)', async (sample) => {
    const page = await ok(
      await search(CONTENT, { fields: 'id,name' }, { analysis_file: [await statsFileOf(sample), 'a.json'] }),
    );
    expect(ids(page)[0]).toBe(s.seeded.ids[sample]);
    // Every analyzed, visible sound is ranked (7 of them: the pending and unanalyzed ones are not).
    expect(page.count).toBe(7);
  });

  it.each(ANALYZED)('variant-B descriptors of %s (content search)', async (sample) => {
    const page = await ok(
      await search(CONTENT, { fields: 'id' }, { analysis_file: [await variantBOf(sample), 'b.json'] }),
    );
    expect(ids(page)[0]).toBe(s.seeded.ids[sample]);
  });

  it.each(['bd_808', 'elec_wood', 'hat_cab'])(
    'earshot frames file of %s (its statistics)',
    async (sample) => {
      const page = await ok(
        await search(CONTENT, { fields: 'id' }, { analysis_file: [await framesFileOf(sample), 'f.json'] }),
      );
      expect(ids(page)[0]).toBe(s.seeded.ids[sample]);
    },
  );

  it('combined search: with a text filter; analysis_file stands for the target', async () => {
    const file = await statsFileOf('bd_klub');
    const page = await ok(
      await search(COMBINED, { filter: 'tag:drum', fields: 'id,tags' }, { analysis_file: [file, 'a.json'] }),
    );
    expect(page.results[0].id).toBe(s.seeded.ids.bd_klub);
    for (const r of page.results) expect(r.tags).toContain('drum');
    expect(page).not.toHaveProperty('count');
    // A query with an example breaks the rule that query and target are not used together.
    await refused(
      await search(COMBINED, { query: 'kick', filter: 'tag:drum' }, { analysis_file: [file, 'a.json'] }),
      400,
      /'query' and 'target'/,
    );
  });

  it('overrides target, respects descriptors_filter, filter-less paging and every similarity space', async () => {
    const file = await statsFileOf('elec_wood');
    const other = String(s.seeded.ids.bd_808);
    const first = await ok(
      await search(CONTENT, { target: other, fields: 'id' }, { analysis_file: [file, 'a.json'] }),
    );
    expect(ids(first)[0]).toBe(s.seeded.ids.elec_wood);

    const pageOne = await ok(
      await search(CONTENT, { page_size: '2', fields: 'id' }, { analysis_file: [file, 'a.json'] }),
    );
    const pageTwo = await ok(
      await search(CONTENT, { page_size: '2', page: '2', fields: 'id' }, { analysis_file: [file, 'a.json'] }),
    );
    expect(ids(pageOne)).toEqual(ids(first).slice(0, 2));
    expect(ids(pageTwo)).toEqual(ids(first).slice(2, 4));

    // A descriptor filter that leaves the chime out: centroids above its own.
    const centroid = JSON.parse(file.toString()).lowlevel.spectral_centroid.mean as number;
    const filtered = await ok(
      await search(
        CONTENT,
        {
          descriptors_filter: `lowlevel.spectral_centroid.mean:[${Math.ceil(centroid + 1)} TO *]`,
          fields: 'id',
        },
        { analysis_file: [file, 'a.json'] },
      ),
    );
    expect(ids(filtered)).not.toContain(s.seeded.ids.elec_wood);
    expect(filtered.count).toBeLessThan(first.count);

    for (const space of ['freesound_classic']) {
      const page = await ok(
        await search(CONTENT, { similarity_space: space, fields: 'id' }, { analysis_file: [file, 'a.json'] }),
      );
      expect(ids(page)[0]).toBe(s.seeded.ids.elec_wood);
    }
  });
});

describe('analysis_file: a file that is not an analysis is a 400 naming the problem', () => {
  const post = (data: Buffer | string, params: Record<string, string> = {}) =>
    search(CONTENT, params, { analysis_file: [data, 'x.json'] });

  it('not JSON, not an object, not a descriptor file', async () => {
    await refused(await post('lowlevel: 1'), 400, /not valid JSON/);
    await refused(await post('[1, 2, 3]'), 400, /must hold a JSON object/);
    await refused(await post('{"name": "kick"}'), 400, /not an earshot descriptor file/);
  });

  it('non-finite values', async () => {
    const tree = JSON.parse((await statsFileOf('bd_808')).toString());
    tree.lowlevel.mfcc.mean[0] = 'INFINITY';
    // JSON has no Infinity, but 1e999 parses to it.
    const text = JSON.stringify(tree).replace('"INFINITY"', '1e999');
    await refused(await post(text), 400, /non-finite value at "lowlevel\.mfcc\.mean\[0\]"/);
    await refused(
      await post('{"mfcc": [1e999, 0], "spectral_centroid": 100}'),
      400,
      /non-finite value at "mfcc\[0\]"/,
    );
  });

  it('missing descriptors the named space needs, an unknown space', async () => {
    await refused(
      await post(await variantBOf('bd_808'), { similarity_space: 'freesound_classic' }),
      400,
      /lacks descriptors similarity space freesound_classic needs: lowlevel\.mfcc\.var\[0\]/,
    );
    await refused(
      await post(await statsFileOf('bd_808'), { similarity_space: 'nope' }),
      400,
      /similarity_space "nope"/,
    );
    await refused(
      await post('{"spectral_centroid_x": 1, "mfcc_y": [1]}'),
      400,
      /not an earshot descriptor file/,
    );
    await refused(
      await post('{"zero_crossing_rate": "high"}'),
      400,
      /none of the descriptors content search compares/,
    );
  });

  it('a damaged frames file', async () => {
    const frames = JSON.parse((await framesFileOf('elec_twip')).toString());
    const mfcc = frames.groups.lowlevel.descriptors.mfcc;
    const whole = mfcc.data;
    // 48 base64 characters are 36 bytes: 9 floats where frames × 13 are needed.
    mfcc.data = whole.slice(0, 48);
    await refused(
      await post(JSON.stringify(frames)),
      400,
      /"groups\.lowlevel\.descriptors\.mfcc" holds 9 values/,
    );
    mfcc.data = whole.slice(0, 40);
    await refused(
      await post(JSON.stringify(frames)),
      400,
      /"groups\.lowlevel\.descriptors\.mfcc" is not whole float32/,
    );
    mfcc.data = whole;
    frames.version = 2;
    await refused(await post(JSON.stringify(frames)), 400, /not version 1/);
  });

  it('too large, another file field, similarity_space without an example', async () => {
    await refused(
      await post(Buffer.alloc(17 * 1024 * 1024, 32)),
      413,
      /'analysis_file' is larger than 16 MB/,
    );
    await refused(
      await search(CONTENT, {}, { other_file: ['{}', 'x.json'] }),
      400,
      /not accepted here \('other_file'\)/,
    );
    await refused(
      await fetch(url(CONTENT, 'target=1&similarity_space=freesound_classic')),
      400,
      /similarity_space' applies only to an analysis_file or audio_file/,
    );
  });
});

describe('audio_file (earshot extension): a clip analyzed during the request', () => {
  it.each(['bd_808', 'elec_wood', 'bd_klub'])(
    'a clip cut from %s (re-encoded, 3 dB quieter) finds its source first',
    async (sample) => {
      const clip = await fs.readFile(clipOf(sample));
      const page = await ok(await search(CONTENT, { fields: 'id' }, { audio_file: [clip, 'clip.mp3'] }));
      expect(ids(page)[0]).toBe(s.seeded.ids[sample]);
      expect(page.analyzed_seconds).toBeGreaterThan(0);
      expect(page.analyzed_seconds).toBeLessThan(1);
      expect(page).not.toHaveProperty('note');
    },
  );

  it('combined search takes it too', async () => {
    const clip = await fs.readFile(clipOf('hat_cab'));
    const page = await ok(
      await search(COMBINED, { filter: 'tag:hat', fields: 'id' }, { audio_file: [clip, 'clip.mp3'] }),
    );
    expect(page.results.map((r: Json) => r.id)).toEqual([s.seeded.ids.hat_cab]);
  });

  it('a 10-minute upload is cut to 30 s, says so, and no upload is left behind', async () => {
    const long = synth(
      path.join(tmp, 'ten-minutes.mp3'),
      'sine=frequency=220:duration=600:sample_rate=22050',
      ['-c:a', 'libmp3lame', '-b:a', '32k'],
    );
    const before = await uploadFolders();
    const page = await ok(
      await search(CONTENT, { fields: 'id' }, { audio_file: [await fs.readFile(long), 'long.mp3'] }),
    );
    expect(page.analyzed_seconds).toBeCloseTo(30, 1);
    expect(page.note).toMatch(/audio_file is 600\.\d s long; only its first 30 s were analyzed/);
    expect(page.count).toBe(7);
    expect(await uploadFolders()).toEqual(before);
  }, 60_000);

  it('a file that is not audio is a 400, and its upload is deleted too', async () => {
    const before = await uploadFolders();
    await refused(await search(CONTENT, {}, { audio_file: ['this is not audio', 'clip.wav'] }), 400, /./);
    await refused(
      await search(
        CONTENT,
        {},
        { audio_file: [await fs.readFile(clipOf('bd_808')), 'c.mp3'], analysis_file: ['{}', 'a.json'] },
      ),
      400,
      /either 'analysis_file' or 'audio_file'/,
    );
    expect(await uploadFolders()).toEqual(before);
  });

  it('is documented in the OpenAPI document as an extension', async () => {
    const doc = await ok(await fetch(`${s.origin}/apiv2/openapi.json`));
    const op = doc.paths['/apiv2/search/content/'].post;
    const props = op.requestBody.content['multipart/form-data'].schema.properties;
    expect(props.audio_file.description).toMatch(/earshot extension/);
    expect(props.analysis_file.format).toBe('binary');
    expect(Object.keys(op.responses)).toContain('429');
  });
});

async function uploadFolders(): Promise<string[]> {
  return (await fs.readdir(os.tmpdir())).filter((name) => name.startsWith('earshot-upload-')).sort();
}

describe('variant A: the same searches on an API_VARIANT=A server', () => {
  let a: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ API_VARIANT: 'A' });
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
  });

  it('the analysis of a sound (its analysis_stats) finds that sound first, content and combined', async () => {
    const key = `token=${a.seeded.apiKey}`;
    for (const sample of ['bd_808', 'elec_twip']) {
      const id = a.seeded.ids[sample];
      const sound = await ok(await fetch(`${a.origin}/apiv2/sounds/${id}/?${key}&fields=analysis_stats`));
      const tree = await ok(await fetch(`${sound.analysis_stats}?${key}`));
      expect(tree).toHaveProperty('lowlevel');
      const form = () => {
        const f = new FormData();
        f.append('analysis_file', new Blob([JSON.stringify(tree)]), 'stats.json');
        f.append('fields', 'id');
        return f;
      };
      const content = await ok(await fetch(`${a.origin}${CONTENT}?${key}`, { method: 'POST', body: form() }));
      expect(content.results[0].id).toBe(id);
      const combined = await ok(
        await fetch(
          `${a.origin}${COMBINED}?${key}&filter=${encodeURIComponent('username:alice OR username:bob')}`,
          {
            method: 'POST',
            body: form(),
          },
        ),
      );
      expect(combined.results[0].id).toBe(id);
    }
  });
});
