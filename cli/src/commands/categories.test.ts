import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getSimilarityVector, openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { CATEGORY_SPACE, estimateCategory, parseCategoryModel } from '@earshot/core';
import { realSampleFile } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../main.ts', import.meta.url));

function earshot(args: string[], dataDir: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error' };
  delete env.REDIS_URL;
  delete env.DATABASE_URL;
  return spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { env, encoding: 'utf8' });
}

// Real CC0 recordings: kicks and drones with their uploader's category (a sidecar each), and two
// without one, as `earshot import` is the way sounds arrive without a category.
const LABELLED: Array<[string, string]> = [
  ['bd_808', 'is-p'],
  ['bd_fat', 'is-p'],
  ['bd_klub', 'is-p'],
  ['ambi_soft_buzz', 'ss-s'],
  ['ambi_drone', 'ss-s'],
  ['ambi_choir', 'ss-s'],
];

describe('earshot categories retrain (embedded, after an import)', () => {
  it('trains on the imported labels and estimates the sounds imported without a category', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-cli-categories-'));
    const inputs = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-cli-categories-in-'));
    try {
      for (const [name, code] of LABELLED) {
        await fs.copyFile(realSampleFile(name), path.join(inputs, `${name}.flac`));
        await fs.writeFile(
          path.join(inputs, `${name}.json`),
          JSON.stringify({
            tags: ['sonic-pi'],
            description: name,
            license: 'Creative Commons 0',
            bst_category: code,
          }),
        );
      }
      for (const name of ['bd_zum', 'drum_tom_mid_hard'])
        await fs.copyFile(realSampleFile(name), path.join(inputs, `${name}.flac`));
      earshot(['users', 'create', 'alice', '--email', 'alice@example.org', '--password', 'pw'], dataDir);
      const imported = earshot(['import', inputs, '--user', 'alice', '--approve'], dataDir);
      expect(imported.status, imported.stderr).toBe(0);

      // The import may end before its own retraining ran: forced, it trains and estimates now.
      const forced = earshot(['categories', 'retrain', '--force'], dataDir);
      expect(forced.status, forced.stderr).toBe(0);
      expect(forced.stdout).toMatch(
        /^trained on 6 labelled sounds \(labels: is-p, ss-s\); [0-2] estimated categories changed\n$/,
      );
      const again = earshot(['categories', 'retrain'], dataDir);
      expect(again.stdout).toBe(
        'not trained: 6 labelled sounds, too few new since the last training (--force to retrain)\n',
      );

      const catalogue = await openCatalogue({
        config: { dataDir },
        logger: createLogger('silent'),
        role: 'command',
      });
      try {
        const rows = await catalogue.db
          .selectFrom('sounds')
          .select(['name', 'category_code', 'category_is_user_provided'])
          .where('name', 'in', ['bd_zum', 'drum_tom_mid_hard', 'bd_808'])
          .orderBy('name')
          .execute();
        // The tom gets the model's best label only when the model is sure enough: which one depends
        // on the descriptors' exact values, so the stored model says what to expect.
        const tom = await catalogue.db
          .selectFrom('sounds')
          .select('id')
          .where('name', '=', 'drum_tom_mid_hard')
          .executeTakeFirstOrThrow();
        const model = await catalogue.db
          .selectFrom('category_models')
          .select('model')
          .executeTakeFirstOrThrow();
        const vector = await getSimilarityVector(catalogue.db, tom.id, CATEGORY_SPACE);
        const expected = vector && estimateCategory(parseCategoryModel(model.model), vector);
        expect(rows).toEqual([
          { name: 'bd_808', category_code: 'is-p', category_is_user_provided: true },
          { name: 'bd_zum', category_code: 'is-p', category_is_user_provided: false },
          {
            name: 'drum_tom_mid_hard',
            category_code: expected ? expected.label : null,
            category_is_user_provided: false,
          },
        ]);
      } finally {
        await catalogue.close();
      }
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
      await fs.rm(inputs, { recursive: true, force: true });
    }
  }, 300_000);
});
