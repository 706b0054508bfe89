import { editSound, findOrCreatePack } from '@earshot/catalogue';
import { moderate } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

type Json = Record<string, any>;

/**
 * A pack is public only while it holds a public sound: one whose sounds all wait for moderation
 * is in no public list or page (version 2, version 1, the web pages), and a pack's counts count
 * public sounds only. Real server, embedded catalogue, real requests.
 */
describe('packs without a public sound', () => {
  let s: TestServer;
  let hidden: number;
  let hat: number;

  beforeAll(async () => {
    s = await startTestServer();
    const db = s.catalogue.db;
    hat = s.seeded.ids.hat_sci; // bob's, pending moderation
    hidden = (await findOrCreatePack(db, s.seeded.userIds.bob, 'Hidden hats')).id;
    await editSound(db, hat, { packId: hidden });
  });
  afterAll(() => s?.stop());

  const get = (path: string) =>
    fetch(`${s.origin}${path}${path.includes('?') ? '&' : '?'}token=${s.seeded.apiKey}`);
  const json = async (path: string): Promise<Json> => {
    const res = await get(path);
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };

  async function expectHidden(): Promise<void> {
    const v2 = await json('/apiv2/users/bob/packs/');
    expect([v2.count, v2.results]).toEqual([0, []]);
    expect((await json('/apiv2/users/bob/')).num_packs).toBe(0);
    for (const path of [
      `/apiv2/packs/${hidden}/`,
      `/apiv2/packs/${hidden}/sounds/`,
      `/api/packs/${hidden}/`,
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
    const v1 = await json('/api/people/bob/packs/');
    expect([v1.num_results, v1.packs]).toEqual([0, []]);
    const profile = await fetch(`${s.origin}/people/bob/`);
    expect(await profile.text()).not.toContain('Hidden hats');
    expect((await fetch(`${s.origin}/people/bob/packs/${hidden}/`)).status).toBe(404);
  }

  it('lists and shows no pack whose only sound waits for moderation, anywhere', async () => {
    await expectHidden();
  });

  it('counts only public sounds in a public pack, and shows the pack once a sound of it is public', async () => {
    const db = s.catalogue.db;
    const drums = s.seeded.packId;
    await editSound(db, hat, { packId: drums }); // the pending sound joins a public pack
    expect((await json(`/apiv2/packs/${drums}/`)).num_sounds).toBe(3);
    expect((await json(`/apiv2/packs/${drums}/sounds/`)).count).toBe(3);
    await expectHidden(); // now empty: still hidden
    await editSound(db, hat, { packId: hidden });
    expect(await moderate(db, [hat], 'approve')).toEqual([hat]);
    const v2 = await json('/apiv2/users/bob/packs/');
    expect(v2.results.map((p: Json) => [p.name, p.num_sounds])).toEqual([['Hidden hats', 1]]);
    expect((await json('/apiv2/users/bob/')).num_packs).toBe(1);
    expect((await json(`/apiv2/packs/${hidden}/`)).num_sounds).toBe(1);
    expect((await json('/api/people/bob/packs/')).num_results).toBe(1);
    expect((await fetch(`${s.origin}/people/bob/packs/${hidden}/`)).status).toBe(200);
  });
});
