// Distinct short WAV fixtures for the benchmarks that upload while they load (soak, the cluster
// rehearsal): each upload then changes a few bytes of one, so every file sent is new.

import path from 'node:path';
import { ensureFixtures, fixturesDir } from '@earshot/fixtures';

/** Paths of the good WAV fixtures from 0.5 s to `maxSeconds` long, one per distinct content. */
export async function uploadSources(maxSeconds: number): Promise<string[]> {
  const manifest = await ensureFixtures();
  const seen = new Set<string>();
  return manifest.fixtures
    .filter((f) => {
      const fits =
        !f.bad && f.format === 'wav' && (f.duration ?? 0) >= 0.5 && (f.duration ?? 0) <= maxSeconds;
      if (!fits || seen.has(f.md5)) return false;
      seen.add(f.md5);
      return true;
    })
    .map((f) => path.join(fixturesDir(), f.file));
}
