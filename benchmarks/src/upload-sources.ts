// Distinct short WAV fixtures for the benchmarks that upload while they load (soak, the cluster
// rehearsal): each upload then changes a few bytes of one, so every file sent is new.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
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

/**
 * A described upload of `source` (as a user sends it: processing starts at once), its last 4 bytes
 * made random so that the file is new; the file is written to `workDir` for the form, and `remove`
 * deletes it once sent. `label` names the sender in the name, tags and description.
 */
export async function uploadForm(
  source: string,
  n: number,
  workDir: string,
  label: string,
): Promise<{ form: FormData; remove: () => void }> {
  const bytes = fs.readFileSync(source);
  randomBytes(4).copy(bytes, bytes.length - 4);
  const file = path.join(workDir, `upload-${n}.wav`);
  fs.writeFileSync(file, bytes);
  const form = new FormData();
  form.set('audiofile', await fs.openAsBlob(file), path.basename(file));
  form.set('name', `${label} upload ${n}`);
  form.set('bst_category', 'fx-other');
  form.set('tags', `${label.toLowerCase()} upload`);
  form.set('description', `Upload ${n} of the ${label.toLowerCase()}.`);
  form.set('license', 'Creative Commons 0');
  return { form, remove: () => fs.rmSync(file, { force: true }) };
}
