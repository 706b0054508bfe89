import { testService } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import { testBackends } from '../testing/catalogue.ts';
import { useRepositoryCatalogue } from '../testing/repository-catalogue.ts';
import { listUnfinishedSounds } from './lifecycle/sound-lifecycle.ts';
import {
  acquireSoundLease,
  releaseSoundLease,
  renewSoundLease,
  SoundLeaseLostError,
  withSoundLease,
} from './sound-leases.ts';
import { createSound } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testBackends(postgresUrl))('sound processing leases on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  async function newSound() {
    const user = await createUser(db(), { username: unique('u') });
    const sound = await createSound(db(), {
      userId: user.id,
      name: unique('sound '),
      tags: ['rain'],
      license: 'Creative Commons 0',
      originalFilename: 'rain.wav',
      originalPath: `${unique('originals/')}.wav`,
      moderationState: 'pending_moderation',
    });
    return sound.id;
  }

  it('lets exactly one of many racing owners take a free lease', async () => {
    const id = await newSound();
    const owners = Array.from({ length: 8 }, (_, i) => `owner-${i}`);
    const won = await Promise.all(owners.map((o) => acquireSoundLease(db(), id, o, 30_000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    // The holder takes it again (its next stage), with a new epoch; the others still cannot.
    const holder = won.find(Boolean)!;
    const again = await acquireSoundLease(db(), id, holder.owner, 30_000);
    expect(again?.epoch).toBe(holder.epoch + 1);
    const other = owners.find((o) => o !== holder.owner)!;
    expect(await acquireSoundLease(db(), id, other, 30_000)).toBeUndefined();
  });

  it('hides a leased sound from the unfinished list until the lease expires', async () => {
    const id = await newSound();
    expect((await listUnfinishedSounds(db(), 10_000)).map((s) => s.id)).toContain(id);
    await acquireSoundLease(db(), id, 'a', 400);
    expect((await listUnfinishedSounds(db(), 10_000)).map((s) => s.id)).not.toContain(id);
    await sleep(600);
    expect((await listUnfinishedSounds(db(), 10_000)).map((s) => s.id)).toContain(id);
  });

  it('fences a holder whose lease expired and was taken over: no renewal, no write, no release', async () => {
    const id = await newSound();
    const old = (await acquireSoundLease(db(), id, 'paused', 300))!;
    expect(await renewSoundLease(db(), old, 300)).toBe(true);
    expect(await acquireSoundLease(db(), id, 'newcomer', 30_000)).toBeUndefined();
    await sleep(500);
    const next = (await acquireSoundLease(db(), id, 'newcomer', 30_000))!;
    expect(next.epoch).toBe(old.epoch + 1);

    expect(await renewSoundLease(db(), old, 30_000)).toBe(false);
    let wrote = false;
    await expect(
      withSoundLease(db(), old, async () => {
        wrote = true;
      }),
    ).rejects.toBeInstanceOf(SoundLeaseLostError);
    expect(wrote).toBe(false);
    await releaseSoundLease(db(), old);
    expect(await withSoundLease(db(), next, async () => 'written')).toBe('written');
    await releaseSoundLease(db(), next);
    expect(await acquireSoundLease(db(), id, 'third', 1_000)).toMatchObject({ epoch: next.epoch + 1 });
  });

  it('keeps an expired lease its holder\u2019s while nobody took it over', async () => {
    const id = await newSound();
    const lease = (await acquireSoundLease(db(), id, 'slow', 100))!;
    await sleep(250);
    expect(await withSoundLease(db(), lease, async () => 'written')).toBe('written');
  });

  it('takes no lease of a sound that does not exist', async () => {
    expect(await acquireSoundLease(db(), 2_000_000_000, 'a', 1_000)).toBeUndefined();
  });
});
