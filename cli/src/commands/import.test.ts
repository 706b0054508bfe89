import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { fixture } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../main.ts', import.meta.url));

function earshot(args: string[], dataDir: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error' };
  delete env.REDIS_URL;
  delete env.DATABASE_URL;
  return spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { env, encoding: 'utf8' });
}

describe('earshot users create + import (embedded, in-process runner)', () => {
  it('imports a folder with sidecars, waits, and reports processed and failed files with reasons', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-cli-import-'));
    const inputs = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-cli-inputs-'));
    await fs.copyFile(fixture('sine-a4'), path.join(inputs, 'tone.wav'));
    await fs.copyFile(fixture('bad-truncated-wav'), path.join(inputs, 'broken.wav'));
    await fs.writeFile(
      path.join(inputs, 'tone.json'),
      JSON.stringify({
        name: 'Pure A',
        tags: ['Sine', 'A4'],
        description: 'A test tone.',
        license: 'Attribution',
      }),
    );

    const created = earshot(
      ['users', 'create', 'alice', '--email', 'alice@example.org', '--password', 'pw'],
      dataDir,
    );
    expect(created.stdout).toBe('created user alice (id 1)\n');

    const imported = earshot(['import', inputs, '--user', 'alice', '--pack', 'Tests', '--approve'], dataDir);
    expect(imported.status, imported.stderr).toBe(1);
    expect(imported.stdout).toContain('processed: 1, failed: 1');
    expect(imported.stdout).toContain(
      `failed ${path.join(inputs, 'broken.wav')} (sound 1): The file is damaged or incomplete and cannot be decoded.`,
    );

    const catalogue = await openCatalogue({
      config: { dataDir },
      logger: createLogger('silent'),
      role: 'command',
    });
    try {
      const sounds = await catalogue.db
        .selectFrom('sounds')
        .leftJoin('packs', 'packs.id', 'sounds.pack_id')
        .select([
          'sounds.name',
          'sounds.tags',
          'sounds.license',
          'sounds.processing_state',
          'sounds.moderation_state',
          'packs.name as pack',
        ])
        .orderBy('sounds.id')
        .execute();
      expect(sounds).toEqual([
        {
          name: 'broken',
          tags: [],
          license: 'Creative Commons 0',
          processing_state: 'Failed',
          moderation_state: 'ok',
          pack: 'Tests',
        },
        {
          name: 'Pure A',
          tags: ['sine', 'a4'],
          license: 'Attribution',
          processing_state: 'Processed',
          moderation_state: 'ok',
          pack: 'Tests',
        },
      ]);
    } finally {
      await catalogue.close();
      await fs.rm(dataDir, { recursive: true, force: true });
      await fs.rm(inputs, { recursive: true, force: true });
    }
  });
});
