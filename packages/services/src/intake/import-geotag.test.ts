import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createUser } from '@earshot/catalogue';
import { openTestCatalogue, type TestCatalogue } from '@earshot/catalogue/testing';
import { fixture } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoundStorage } from '../storage/sound-files.ts';
import { recordingQueue } from '../testing/processing-queue.ts';
import { queueImports } from './bulk-import.ts';
import { SoundIntake } from './sound-intake.ts';

// The import sidecar takes the upload's fields through the upload's validator: geotag and
// bst_category included (so that a geotag filter can match an imported sound), bad values refused.

describe('earshot import sidecars through the upload field rules', () => {
  let test: TestCatalogue;
  let dir: string;
  let userId: number;
  beforeAll(async () => {
    test = await openTestCatalogue('pglite');
    userId = (await createUser(test.catalogue.db, { username: 'importer' })).id;
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-import-geotag-'));
  });
  afterAll(async () => {
    await test?.cleanup();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const intake = () => new SoundIntake(test.catalogue.db, new SoundStorage(path.join(dir, 'data')));

  it('stores geotag and taxonomy from a JSON sidecar and from a metadata.csv row', async () => {
    const inputs = path.join(dir, 'ok');
    await fs.mkdir(inputs);
    await fs.copyFile(fixture('sine-a4'), path.join(inputs, 'tone.wav'));
    await fs.copyFile(fixture('noise-pink'), path.join(inputs, 'rain.wav'));
    await fs.writeFile(
      path.join(inputs, 'tone.json'),
      JSON.stringify({ name: 'Tone', tags: ['Sine'], geotag: '41.3851,2.1734,14', bst_category: 'is-e' }),
    );
    await fs.writeFile(
      path.join(inputs, 'metadata.csv'),
      'filename,tags,geotag,license\nrain.wav,rain pink,"-33.86,151.2,12",attribution\n',
    );
    const { queue, submitted } = recordingQueue();
    const queued = await queueImports(
      intake(),
      queue,
      [path.join(inputs, 'rain.wav'), path.join(inputs, 'tone.wav')],
      { userId },
    );
    expect(submitted).toEqual(queued.map((q) => q.soundId));
    const rows = await test.catalogue.db
      .selectFrom('sounds')
      .select([
        'name',
        'tags',
        'license',
        'geotag_lat',
        'geotag_lon',
        'geotag_zoom',
        'is_geotagged',
        'category_code',
      ])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      {
        name: 'rain',
        tags: ['rain', 'pink'],
        license: 'Attribution',
        geotag_lat: -33.86,
        geotag_lon: 151.2,
        geotag_zoom: 12,
        is_geotagged: true,
        category_code: null,
      },
      {
        name: 'Tone',
        tags: ['sine'],
        license: 'Creative Commons 0',
        geotag_lat: 41.3851,
        geotag_lon: 2.1734,
        geotag_zoom: 14,
        is_geotagged: true,
        category_code: 'is-e',
      },
    ]);
  });

  it('refuses a sidecar whose geotag or licence breaks the rules, naming the file and the field', async () => {
    const inputs = path.join(dir, 'bad');
    await fs.mkdir(inputs);
    const file = path.join(inputs, 'far.wav');
    await fs.copyFile(fixture('sine-c4'), file);
    await fs.writeFile(path.join(inputs, 'far.json'), JSON.stringify({ geotag: '95,10,12', license: 'GPL' }));
    const before = await test.catalogue.db.selectFrom('sounds').select('id').execute();
    await expect(queueImports(intake(), recordingQueue().queue, [file], { userId })).rejects.toThrow(
      /far\.wav: Invalid description: license: Invalid License.*; geotag: Latitude must be in the range \[-90,90\]\./,
    );
    expect(await test.catalogue.db.selectFrom('sounds').select('id').execute()).toEqual(before);
  });
});
