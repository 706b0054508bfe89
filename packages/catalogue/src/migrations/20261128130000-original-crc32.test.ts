import { testService } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import { listPackFiles } from '../repositories/downloads.ts';
import { findOrCreatePack } from '../repositories/packs.ts';
import { createSound, setProbe } from '../repositories/sounds.ts';
import { addPendingUpload, takePendingUpload } from '../repositories/uploads.ts';
import { createUser } from '../repositories/users.ts';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('the originals’ CRC-32 on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  it('keeps a CRC-32 from intake through a probe that did not read the file, and lists it for the pack zip', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const pack = await findOrCreatePack(db(), user.id, unique('pack '));
    const { id } = await createSound(db(), {
      userId: user.id,
      name: unique('sound '),
      tags: ['tone'],
      license: 'Creative Commons 0',
      originalFilename: 'a.wav',
      originalPath: `${unique('originals/')}.wav`,
      packId: pack.id,
      crc32: 0xffffffff,
    });
    const probe = {
      type: 'wav' as const,
      channels: 2,
      filesize: 10,
      bitrate: 0,
      bitdepth: 16,
      duration: 1,
      samplerate: 44100,
      md5: unique('md5-'),
    };
    await setProbe(db(), id, probe);
    const crcOf = async () =>
      (await db().selectFrom('sounds').select('crc32').where('id', '=', id).executeTakeFirstOrThrow()).crc32;
    expect(await crcOf()).toBe(0xffffffff);
    // A probe that read the file sets it.
    await setProbe(db(), id, { ...probe, crc32: 1234 });
    expect(await crcOf()).toBe(1234);
    await db()
      .updateTable('sounds')
      .set({ processing_state: 'Processed', moderation_state: 'ok' } as never)
      .where('id', '=', id)
      .execute();
    expect((await listPackFiles(db(), pack.id)).map((f) => f.crc32)).toEqual([1234]);
  });

  it('goes with a pending upload and refuses what is not a CRC-32', async () => {
    const user = await createUser(db(), { username: unique('u') });
    await addPendingUpload(db(), {
      userId: user.id,
      filename: 'a.wav',
      storedPath: unique('pending/'),
      filesize: 3,
      md5: unique('m'),
      crc32: 7,
    });
    expect((await takePendingUpload(db(), user.id, 'a.wav'))?.crc32).toBe(7);
    for (const bad of [-1, 2 ** 32]) {
      await expect(
        addPendingUpload(db(), {
          userId: user.id,
          filename: `${bad}.wav`,
          storedPath: unique('pending/'),
          filesize: 3,
          crc32: bad,
        }),
      ).rejects.toThrow();
    }
  });
});
