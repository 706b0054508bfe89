import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fixturesDir, loadManifest } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/earshot.mjs', import.meta.url));

describe('earshot fixtures', () => {
  it('keeps a current set (made by the test setup) and prints a per-group summary', () => {
    const run = spawnSync(process.execPath, [bin, 'fixtures'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const manifest = loadManifest();
    expect(run.stdout).toContain(`fixtures in ${fixturesDir()} (generator ${manifest.generatorVersion})`);
    expect(run.stdout).toMatch(/^ {2}harmony +48 /m);
    expect(run.stdout).toMatch(new RegExp(`^ {2}total +${manifest.fixtures.length} `, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^0 written, ${manifest.fixtures.length} kept`, 'm'));
  });
});
