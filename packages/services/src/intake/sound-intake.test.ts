import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { createSound, createUser, type Db } from '@earshot/catalogue';
import { freshDataDir, testBackends, useRepositoryCatalogue } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { SoundStorage } from '../storage/sound-files.ts';
import { DuplicateUploadError, SoundIntake } from './sound-intake.ts';

const postgresUrl = await testService('postgres');

/**
 * The duplicate rule (a file the catalogue holds is refused, naming the sound that holds it) now
 * checked by size first: real catalogue (PGlite, and the PostgreSQL server for real concurrency),
 * real files in a real data folder.
 */
describe.each(testBackends(postgresUrl))('SoundIntake duplicate rule on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);
  let storage: SoundStorage;
  let intake: SoundIntake;
  let userId: number;
  let sourceDir: string;

  beforeAll(async () => {
    storage = new SoundStorage(await freshDataDir());
    sourceDir = await fs.mkdtemp(path.join(storage.dataDir, 'source-'));
    intake = new SoundIntake(db(), storage);
    userId = (await createUser(db(), { username: unique('u') })).id;
  });

  /** A file of `size` random bytes (sizes unique per test: other tests' sounds are no candidates). */
  async function file(bytes: Buffer, name = unique('f')): Promise<string> {
    const target = path.join(sourceDir, `${name}.wav`);
    await fs.writeFile(target, bytes);
    return target;
  }

  const create = (file: string) => intake.create({ userId, file, name: path.basename(file) });
  const row = (id: number) =>
    (db() as Db)
      .selectFrom('sounds')
      .select(['md5', 'crc32', 'filesize', 'original_path'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
  let nextSize = 100_000 + (backend === 'postgres' ? 50_000 : 0);
  const freshSize = () => nextSize++;

  it('takes a file of a size no original has without hashing it: md5 and CRC-32 left to the probe', async () => {
    const bytes = randomBytes(freshSize());
    const id = await create(await file(bytes));
    expect(await row(id)).toMatchObject({ md5: null, crc32: null, filesize: bytes.length });
    const stored = await fs.readFile(storage.absolute((await row(id)).original_path));
    expect(stored.equals(bytes)).toBe(true);
  });

  it('a file of the same size, other bytes, is taken; both are hashed then (the first one filled in)', async () => {
    const a = randomBytes(freshSize());
    const b = Buffer.from(a);
    b[b.length - 1] ^= 1;
    const first = await create(await file(a));
    expect((await row(first)).md5).toBeNull();
    const second = await create(await file(b));
    expect(await row(first)).toMatchObject({ md5: md5(a), crc32: crc32(a) });
    expect(await row(second)).toMatchObject({ md5: md5(b), crc32: crc32(b) });
  });

  it('the same bytes again are refused naming the sound, its md5 unknown until then; nothing is left', async () => {
    const bytes = randomBytes(freshSize());
    const first = await create(await file(bytes));
    const copy = await file(bytes);
    const refused = await create(copy).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DuplicateUploadError);
    expect((refused as DuplicateUploadError).message).toBe(
      `Sound could not be created because the uploaded file is already part of the catalogue (sound ${first}).`,
    );
    expect((await row(first)).md5).toBe(md5(bytes));
    const count = await (db() as Db)
      .selectFrom('sounds')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('filesize', '=', bytes.length)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    // The import copies (move: false): the source is left as it was.
    expect((await fs.readFile(copy)).equals(bytes)).toBe(true);
  });

  it('of the same bytes arriving at once, exactly one is taken; the others name it', async () => {
    for (let round = 0; round < 3; round++) {
      const bytes = randomBytes(freshSize());
      const copies = await Promise.all(Array.from({ length: 4 }, () => file(bytes)));
      const outcomes = await Promise.allSettled(
        copies.map((copy) => intake.create({ userId, file: copy, move: true })),
      );
      const taken = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      expect(taken).toHaveLength(1);
      for (const o of outcomes) {
        if (o.status === 'fulfilled') continue;
        expect(o.reason).toBeInstanceOf(DuplicateUploadError);
        expect((o.reason as DuplicateUploadError).soundId).toBe(taken[0]);
      }
    }
  });

  it('a sound queued before sizes were kept is sized once, and refused against when it holds the file', async () => {
    const bytes = randomBytes(freshSize());
    const stored = await file(bytes);
    // As the import created sounds before: no size, no md5, until the probe.
    const legacy = await createSound(db(), {
      userId,
      name: unique('legacy'),
      tags: [],
      license: 'Creative Commons 0',
      originalFilename: 'legacy.wav',
      originalPath: storage.relative(stored),
    });
    const other = await create(await file(randomBytes(freshSize())));
    expect((await row(legacy.id)).filesize).toBe(bytes.length);
    expect((await row(legacy.id)).md5).toBeNull();
    expect((await row(other)).md5).toBeNull();
    const refused = await create(await file(bytes)).catch((err: unknown) => err);
    expect((refused as DuplicateUploadError).soundId).toBe(legacy.id);
  });

  it('a given md5 (a file hashed while pending description) is not taken again and still judged', async () => {
    const bytes = randomBytes(freshSize());
    const first = await create(await file(bytes));
    const verdict = await intake.sameFile({ path: await file(bytes), size: bytes.length });
    expect(verdict).toEqual({ holder: first, digests: { md5: md5(bytes), crc32: crc32(bytes) } });
    const other = Buffer.from(bytes);
    other[0] ^= 1;
    // A given md5 is trusted as the file's: with the md5 of `bytes`, a file of other bytes is refused.
    const refused = await intake
      .create({ userId, file: await file(other), md5: md5(bytes), filesize: bytes.length })
      .catch((err: unknown) => err);
    expect((refused as DuplicateUploadError).soundId).toBe(first);
  });
});
