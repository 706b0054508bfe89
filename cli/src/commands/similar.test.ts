import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { fixture } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `earshot similar` against a data folder whose sounds went through the real import and pipeline:
 * a clip cut from one of them, or that sound's own analysis file, lists it first.
 */

const main = fileURLToPath(new URL('../main.ts', import.meta.url));

function earshot(args: string[], dataDir: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error' };
  delete env.REDIS_URL;
  delete env.DATABASE_URL;
  return spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { env, encoding: 'utf8' });
}

const SOUNDS = ['drums-80bpm', 'noise-pink', 'harmonic-a3', 'triad-c-major'];

let dataDir: string;
let inputs: string;
/** Sound id by fixture name, from the import's order. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-cli-similar-'));
  inputs = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-cli-similar-in-'));
  for (const name of SOUNDS) await fs.copyFile(fixture(name), path.join(inputs, `${name}.wav`));
  expect(
    earshot(['users', 'create', 'alice', '--email', 'a@example.org', '--password', 'pw'], dataDir).status,
  ).toBe(0);
  const imported = earshot(['import', inputs, '--user', 'alice', '--approve'], dataDir);
  expect(imported.status, imported.stderr).toBe(0);
  expect(imported.stdout).toContain(`processed: ${SOUNDS.length}, failed: 0`);
  const catalogue = await openCatalogue({
    config: { dataDir },
    logger: createLogger('silent'),
    role: 'command',
  });
  try {
    for (const row of await catalogue.db.selectFrom('sounds').select(['id', 'name']).execute()) {
      ids[row.name] = String(row.id);
    }
  } finally {
    await catalogue.close();
  }
  expect(Object.keys(ids).sort()).toEqual([...SOUNDS].sort());
}, 240_000);
afterAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.rm(inputs, { recursive: true, force: true });
});

const firstId = (stdout: string) => stdout.split('\n')[0].split('\t')[0];

describe('earshot similar', () => {
  it.each(['drums-80bpm', 'harmonic-a3', 'triad-c-major'])(
    'lists the sound a clip was cut from first (%s: 3 s, re-encoded, 3 dB quieter)',
    async (name) => {
      const clip = path.join(inputs, `${name}-clip.mp3`);
      execFileSync('ffmpeg', [
        '-v',
        'error',
        '-y',
        '-ss',
        '0.5',
        '-t',
        '3',
        '-i',
        fixture(name),
        '-af',
        'volume=-3dB',
        clip,
      ]);
      const run = earshot(['similar', clip, '--n', '3'], dataDir);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(3);
      expect(firstId(run.stdout)).toBe(ids[name]);
      expect(run.stderr).toContain('compared by: freesound_classic');
    },
    60_000,
  );

  it('takes the analysis files earshot writes, variant B by its descriptors', async () => {
    const b = path.join(inputs, 'b.json');
    const analyzed = spawnSync(
      process.execPath,
      ['--import', 'tsx', main, 'analyze', fixture('noise-pink')],
      {
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'error' },
      },
    );
    await fs.writeFile(b, analyzed.stdout);
    const run = earshot(['similar', b], dataDir);
    expect(run.status, run.stderr).toBe(0);
    expect(firstId(run.stdout)).toBe(ids['noise-pink']);
    expect(run.stderr).toContain('compared by: descriptors');
    expect(run.stdout.trim().split('\n')).toHaveLength(SOUNDS.length);
  }, 60_000);

  it('refuses an unknown space and a file that is no analysis, exit code 2', async () => {
    const space = earshot(['similar', fixture('sine-a4'), '--space', 'nope'], dataDir);
    expect(space.status).toBe(2);
    expect(space.stderr).toMatch(/Unknown similarity space "nope"/);
    const notAnalysis = path.join(inputs, 'x.json');
    await fs.writeFile(notAnalysis, '{"name": "x"}');
    const bad = earshot(['similar', notAnalysis], dataDir);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/not an earshot descriptor file/);
  }, 60_000);
});
