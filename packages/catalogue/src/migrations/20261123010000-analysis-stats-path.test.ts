import { testService } from '@earshot/common/testing';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createSound, getSound, setMediaPaths } from '../repositories/sounds.ts';
import { createUser } from '../repositories/users.ts';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import { up } from './20261123010000-analysis-stats-path.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('the analysis_stats media path migration on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  it('renames the key a sound processed before the fix stored its statistics file under', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const sound = (name: string) =>
      createSound(db(), {
        userId: user.id,
        name,
        tags: ['rain'],
        license: 'Creative Commons 0',
        originalFilename: 'rain.wav',
        originalPath: `${unique('originals/')}.wav`,
      });
    const old = await sound('processed before');
    const current = await sound('processed after');
    const stats = `sounds/1/${old.id}/analysis/analysis_stats.json`;
    const frames = `sounds/1/${old.id}/analysis/analysis_frames.json`;
    await setMediaPaths(db(), old.id, { analysis: stats, analysis_frames: frames, waveform_m: 'w.png' });
    await setMediaPaths(db(), current.id, { analysis_stats: 'a.json', waveform_m: 'w.png' });

    // Run again on the migrated catalogue, over the rows written the old way.
    await up(db() as unknown as Kysely<unknown>);

    expect((await getSound(db(), old.id))?.media_paths).toEqual({
      analysis_stats: stats,
      analysis_frames: frames,
      waveform_m: 'w.png',
    });
    expect((await getSound(db(), current.id))?.media_paths).toEqual({
      analysis_stats: 'a.json',
      waveform_m: 'w.png',
    });
  });
});
