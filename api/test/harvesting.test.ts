import { gunzipSync } from 'node:zlib';
import SwaggerParser from '@apidevtools/swagger-parser';
import { deleteSound, editSound } from '@earshot/catalogue';
import { createTestDatabase, setProcessingState } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { writeCatalogueExport } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B_FIELDS } from '../src/v2/presenters/sound-fields.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * What earshot adds for harvesters (docs/api.md "Beyond the contract"), on the seeded catalogue and
 * both databases. The changes feed (`/apiv2/changes/`): a harvest from the beginning ends with
 * exactly the visible sounds as the sound instances show them; later edits, approvals, removals and
 * deletions follow from its cursor. The `attribution` field: the credit line the licence asks for.
 */

const postgresUrl = await testService('postgres');
const backends = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

type Json = Record<string, any>;

describe.each(backends)('GET /apiv2/changes/ on %s', (backend) => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    database = backend === 'postgres' ? await createTestDatabase(postgresUrl as string) : undefined;
    s = await startTestServer(database ? { DATABASE_URL: database.url } : {});
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  async function get(
    path: string,
    key: string | null = s.seeded.apiKey,
  ): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${s.origin}${path}`, { headers: key ? { Authorization: `Token ${key}` } : {} });
    return { status: res.status, body: (await res.json()) as Json };
  }

  /** Follows `next` until an answer is not full; every change in order, and the last answer. */
  async function harvest(first: string): Promise<{ changes: Json[]; last: Json }> {
    const changes: Json[] = [];
    let url = first;
    for (;;) {
      const res = await get(url);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      changes.push(...res.body.changes);
      if (!res.body.more) return { changes, last: res.body };
      url = new URL(res.body.next).pathname + new URL(res.body.next).search;
    }
  }

  const visible = () =>
    Object.entries(s.seeded.ids)
      .filter(([sample]) => sample !== 'hat_sci')
      .map(([, id]) => id);

  it('harvests every visible sound once, as its instance shows it, in pages linked by cursor', async () => {
    const { changes, last } = await harvest('/apiv2/changes/?page_size=2&fields=id,name,license,username');
    expect(changes.map((c) => c.id).sort((a, b) => a - b)).toEqual(visible().sort((a, b) => a - b));
    for (const change of changes) {
      const instance = await get(`/apiv2/sounds/${change.id}/?fields=id,name,license,username`);
      expect(change.sound).toEqual(instance.body);
      expect(['created', 'edited']).toContain(change.change);
      expect(change.changed).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    }
    // The links keep the request's other parameters and carry the cursor as `since`.
    const next = new URL(last.next);
    expect(next.pathname).toBe('/apiv2/changes/');
    expect(Object.fromEntries(next.searchParams)).toEqual({
      page_size: '2',
      fields: 'id,name,license,username',
      since: last.cursor,
    });
    // Caught up: the same cursor again, nothing new.
    const again = await get(`/apiv2/changes/?since=${last.cursor}`);
    expect(again.body).toMatchObject({ changes: [], cursor: last.cursor, more: false });
  });

  it('shows each field as the full record shows it, whatever fields are asked (the feed reads only what they need)', async () => {
    // The reference: text search's page, whose rows are the full records every list reads.
    const full = await get('/apiv2/search/text/?query=&page_size=150&fields=*,pack_name,attribution');
    expect(full.status).toBe(200);
    const byId = new Map<number, Json>(full.body.results.map((r: Json) => [r.id, r]));
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual(visible().sort((a, b) => a - b));
    // Sounds with and without a pack, a geotag, analysis and a similarity vector are among them.
    const sounds = [...byId.values()];
    for (const field of ['pack', 'geotag', 'similar_sounds'])
      expect(new Set(sounds.map((r) => r[field] === null))).toEqual(new Set([true, false]));
    expect(new Set(sounds.map((r) => r.analysis_files.length > 0))).toEqual(new Set([true, false]));

    const selections = [
      ...B_FIELDS.filter((f) => f !== 'score' && f !== 'distance_to_target'),
      'id,name',
      'url,attribution,similar_sounds,analysis_files,username,pack_name',
      'geotag,is_geotagged,category,gen_ai_preference,spectral_centroid',
    ];
    for (const fields of selections) {
      const { changes } = await harvest(`/apiv2/changes/?page_size=100&fields=${fields}`);
      expect(
        changes.map((c) => c.id).sort((a, b) => a - b),
        fields,
      ).toEqual(visible().sort((a, b) => a - b));
      const names = fields.split(',');
      for (const change of changes) {
        const record = byId.get(change.id) as Json;
        const expected = Object.fromEntries(names.map((name) => [name, record[name] ?? null]));
        expect(change.sound, `${fields} of sound ${change.id}`).toEqual(expected);
      }
    }
    // Without `fields`, the list defaults; with `*`, every field a list shows (not score).
    const defaults = await harvest('/apiv2/changes/?page_size=100');
    const star = await harvest('/apiv2/changes/?page_size=100&fields=*');
    for (const [answer, names] of [
      [defaults, ['id', 'name', 'tags', 'username', 'license']],
      [
        star,
        Object.keys(full.body.results[0]).filter(
          (f) => !['score', 'distance_to_target', 'attribution'].includes(f),
        ),
      ],
    ] as const)
      for (const change of answer.changes) {
        const record = byId.get(change.id) as Json;
        expect(change.sound).toEqual(Object.fromEntries(names.map((name) => [name, record[name]])));
      }
  });

  it('lists later edits, approvals, removals and deletions after the cursor, in the order they committed', async () => {
    const { last } = await harvest('/apiv2/changes/?page_size=100&fields=id');
    const db = s.catalogue.db;
    const { bd_fat, hat_sci, bd_klub, tabla_ke1 } = s.seeded.ids;
    await editSound(db, bd_fat, { name: 'Renamed kick' });
    await db.updateTable('sounds').set({ moderation_state: 'ok' }).where('id', '=', hat_sci).execute();
    await setProcessingState(db, bd_klub, { state: 'Queued' });
    await deleteSound(db, tabla_ke1);

    const res = await get(`/apiv2/changes/?since=${last.cursor}&fields=id,name`);
    expect(res.status).toBe(200);
    expect(res.body.changes.map((c: Json) => [c.id, c.change, c.sound])).toEqual([
      [bd_fat, 'edited', { id: bd_fat, name: 'Renamed kick' }],
      [hat_sci, 'approved', { id: hat_sci, name: 'Metal hat' }],
      [bd_klub, 'removed', null],
      [tabla_ke1, 'removed', null],
    ]);
    // From the beginning the feed holds each sound once, at its latest change; tombstones stay.
    const all = await harvest('/apiv2/changes/?page_size=3&fields=id');
    const byId = new Map(all.changes.map((c) => [c.id, c.change]));
    expect(all.changes.length).toBe(byId.size);
    expect(byId.get(tabla_ke1)).toBe('removed');
    expect(byId.get(hat_sci)).toBe('approved');
  });

  it('answers a bad cursor, a bad page size and a missing credential with a 4xx saying what is wrong', async () => {
    expect(await get('/apiv2/changes/?since=nonsense')).toEqual({
      status: 400,
      body: { detail: 'since: not a cursor this server handed out' },
    });
    for (const size of ['0', '5001', 'ten', '-1'])
      expect(await get(`/apiv2/changes/?page_size=${size}`)).toEqual({
        status: 400,
        body: { detail: 'page_size: an integer from 1 to 5000' },
      });
    expect((await get('/apiv2/changes/', null)).status).toBe(401);
  });

  it('gives the credit line of each licence as the `attribution` field, only when asked for', async () => {
    const { bd_808, hat_cab, elec_wood } = s.seeded.ids;
    const attribution = async (id: number) =>
      (await get(`/apiv2/sounds/${id}/?fields=id,attribution`)).body.attribution as string;
    expect(await attribution(hat_cab)).toBe(
      `"Cabasa hat" by alice (${s.origin}/people/alice/sounds/${hat_cab}/) is licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)`,
    );
    expect(await attribution(elec_wood)).toBe(
      `"Electric chime" by bob (${s.origin}/people/bob/sounds/${elec_wood}/) is licensed under CC BY-NC 4.0 (https://creativecommons.org/licenses/by-nc/4.0/)`,
    );
    expect(await attribution(bd_808)).toBe(
      `"Kick 808" by alice (${s.origin}/people/alice/sounds/${bd_808}/) is dedicated to the public domain under CC0 1.0 (https://creativecommons.org/publicdomain/zero/1.0/)`,
    );
    // Not a contract field: absent from the instance's defaults and from `*`.
    expect((await get(`/apiv2/sounds/${bd_808}/`)).body).not.toHaveProperty('attribution');
    expect((await get(`/apiv2/sounds/${bd_808}/?fields=*`)).body).not.toHaveProperty('attribution');
    // Lists and the changes feed select it like any field.
    const list = await get(`/apiv2/users/bob/sounds/?fields=id,attribution`);
    expect(list.body.results.find((r: Json) => r.id === elec_wood).attribution).toBe(
      await attribution(elec_wood),
    );
    const feed = await harvest('/apiv2/changes/?page_size=100&fields=attribution');
    expect(feed.changes.find((c) => c.id === hat_cab)?.sound).toEqual({
      attribution: await attribution(hat_cab),
    });
  });

  it('serves the latest bulk export: one line per visible sound, with the cursor the changes feed picks up at', async () => {
    expect(await get('/apiv2/export/')).toEqual({
      status: 404,
      body: { detail: 'No export has been made yet.' },
    });
    const progress: number[] = [];
    const info = await writeCatalogueExport(s.catalogue.db, s.dataDir, s.origin, (n) => progress.push(n));
    const res = await fetch(`${s.origin}/apiv2/export/`, {
      headers: { Authorization: `Token ${s.seeded.apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('x-export-created')).toBe(info.created);
    expect(res.headers.get('x-changes-cursor')).toBe(info.cursor);
    const lines = gunzipSync(Buffer.from(await res.arrayBuffer()))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    const visibleNow = (
      await harvest('/apiv2/changes/?page_size=100&fields=id,name,license,attribution')
    ).changes
      .filter((c) => c.sound)
      .map((c) => c.sound as Json);
    expect(lines.map((l) => l.id)).toEqual(visibleNow.map((v) => v.id).sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(lines.length);
    for (const line of lines) {
      const shown = visibleNow.find((v) => v.id === line.id) as Json;
      expect([line.name, line.license, line.attribution]).toEqual([
        shown.name,
        shown.license,
        shown.attribution,
      ]);
      expect(line.license_url).toMatch(/^https:\/\/creativecommons\.org\//);
    }
    // What changes after the export follows from its cursor, and only that.
    await editSound(s.catalogue.db, lines[0].id, { name: 'After the export' });
    const after = await get(`/apiv2/changes/?since=${info.cursor}&fields=name`);
    expect(after.body.changes.map((c: Json) => [c.id, c.sound?.name])).toEqual([
      [lines[0].id, 'After the export'],
    ]);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${s.origin}/apiv2/openapi.json`)).json()) as Json;
    await SwaggerParser.validate(structuredClone(doc) as never);
    const op = doc.paths['/apiv2/changes/'].get;
    expect(op.parameters.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(['since', 'page_size', 'fields']),
    );
  });
});
