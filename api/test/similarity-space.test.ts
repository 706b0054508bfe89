import fs from 'node:fs/promises';
import path from 'node:path';
import { ESSENTIA_REFERENCE_DIR } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { fuzzBackends } from './fuzz/backends.ts';
import { useTestServerOn } from './support/backend-server.ts';

/**
 * `similarity_space` (issue 35): every parameter naming a space refuses one that does not exist
 * here (upstream's default `laion_clap` among them) with a 400 whose detail lists the spaces that
 * do; and the `sim_<space>` fields return a sound's vector, as upstream's serializer does. On the
 * embedded catalogue and on the PostgreSQL server.
 */

type Json = Record<string, any>;

const backends = await fuzzBackends();

describe.each(backends)('similarity spaces on $name', (backend) => {
  const t = useTestServerOn(backend);

  const url = (p: string, params: Record<string, string> = {}) => {
    const u = new URL(`${t.server.origin}${p}`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    u.searchParams.set('token', t.server.seeded.apiKey);
    return u;
  };
  async function answer(res: Response): Promise<{ status: number; body: Json }> {
    return { status: res.status, body: (await res.json()) as Json };
  }
  const listsTheSpaces = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(String(res.body.detail)).toMatch(/"laion_clap".*available spaces: freesound_classic\b/);
  };

  it('laion_clap is a 400 listing the spaces, wherever a space is named', async () => {
    const id = String(t.server.seeded.ids.bd_808);
    listsTheSpaces(
      await answer(await fetch(url(`/apiv2/sounds/${id}/similar/`, { similarity_space: 'laion_clap' }))),
    );
    listsTheSpaces(
      await answer(await fetch(url('/apiv2/search/', { similar_to: id, similarity_space: 'laion_clap' }))),
    );
    const form = new FormData();
    form.append('similarity_space', 'laion_clap');
    const tree = await fs.readFile(path.join(ESSENTIA_REFERENCE_DIR, 'bd_808.json'));
    form.append('analysis_file', new Blob([tree]), 'bd_808.json');
    listsTheSpaces(await answer(await fetch(url('/apiv2/search/content/'), { method: 'POST', body: form })));
    // The space that exists answers.
    const ok = await answer(
      await fetch(url(`/apiv2/sounds/${id}/similar/`, { similarity_space: 'freesound_classic' })),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.count).toBeGreaterThan(0);
  });

  it('sim_<space> returns the sound vector, all_similarity_spaces every space; null without one', async () => {
    const { body: analysis } = await answer(
      await fetch(url(`/apiv2/sounds/${t.server.seeded.ids.bd_808}/analysis/`)),
    );
    const { body: sound } = await answer(
      await fetch(
        url(`/apiv2/sounds/${t.server.seeded.ids.bd_808}/`, {
          fields: 'id,sim_freesound_classic,sim_laion_clap',
        }),
      ),
    );
    // An unknown field name is ignored, as upstream does.
    expect(Object.keys(sound)).toEqual(['id', 'sim_freesound_classic']);
    expect(sound.sim_freesound_classic).toHaveLength(100);
    expect(sound.sim_freesound_classic).toEqual(analysis.freesound_classic);
    expect(Math.hypot(...(sound.sim_freesound_classic as number[]))).toBeCloseTo(1, 4);

    const { body: page } = await answer(
      await fetch(
        url('/apiv2/search/', { query: '', fields: 'id,name,all_similarity_spaces', page_size: '50' }),
      ),
    );
    for (const r of page.results as Json[]) {
      expect(Object.keys(r)).toEqual(['id', 'name', 'sim_freesound_classic']);
      if (r.name === 'Finger snap') expect(r.sim_freesound_classic).toBeNull();
      else expect(r.sim_freesound_classic).toHaveLength(100);
    }
    // Without fields, no vector is read or returned.
    const { body: plain } = await answer(await fetch(url(`/apiv2/sounds/${t.server.seeded.ids.bd_808}/`)));
    expect(plain).not.toHaveProperty('sim_freesound_classic');
  });
});
