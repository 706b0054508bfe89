import { testService } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import { testBackends, useRepositoryCatalogue } from '../../testing/index.ts';
import { createSound, getSound, setMediaPaths, setProbe } from '../sounds.ts';
import { createUser } from '../users.ts';
import {
  advanceStage,
  failProcessing,
  finishProcessing,
  getProcessingRecord,
  listFailedSoundIds,
  listSettledSounds,
  listUnfinishedSounds,
  moderateSound,
  moderateSounds,
  reportProgress,
  reprocessSound,
  startStage,
} from './sound-lifecycle.ts';
import { IllegalTransitionError } from './transitions.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('the sound lifecycle on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  async function newSound(options: { trusted?: boolean } = {}) {
    const user = await createUser(db(), { username: unique('u'), isTrusted: options.trusted });
    return createSound(db(), {
      userId: user.id,
      name: unique('sound '),
      tags: ['rain'],
      license: 'Creative Commons 0',
      originalFilename: 'rain.wav',
      originalPath: `${unique('originals/')}.wav`,
      moderationState: 'pending_moderation',
    });
  }
  const state = async (id: number) => {
    const s = await getSound(db(), id);
    return [s?.processing_state, s?.moderation_state];
  };

  it('creates a sound Queued and takes it through every stage to Processed and pending moderation', async () => {
    const sound = await newSound();
    expect(await getProcessingRecord(db(), sound.id)).toMatchObject({
      state: 'Queued',
      stage: null,
      attempts: 0,
      progress: 0,
    });
    await startStage(db(), sound.id, { stage: 'probe', progress: 0, attempts: 1 });
    await setProbe(
      db(),
      sound.id,
      {
        type: 'wav',
        channels: 1,
        filesize: 10,
        bitrate: 0,
        bitdepth: 16,
        duration: 1,
        samplerate: 44100,
        md5: unique('md5-'),
      },
      { stage: 'media', progress: 0.05 },
    );
    await reportProgress(db(), sound.id, { stage: 'media', progress: 0.2 });
    await setMediaPaths(db(), sound.id, { peaks: 'p.json' }, { stage: 'analysis', progress: 0.4 });
    await advanceStage(db(), sound.id, { stage: 'handover', progress: 0.95 });
    expect(await getProcessingRecord(db(), sound.id)).toMatchObject({
      state: 'Processing',
      stage: 'handover',
      attempts: 1,
      progress: 0.95,
    });
    expect(await listUnfinishedSounds(db(), 1000)).toContainEqual({ id: sound.id, stage: 'handover' });
    expect(await finishProcessing(db(), sound.id, 'handover')).toBe('pending_moderation');
    expect(await state(sound.id)).toEqual(['Processed', 'pending_moderation']);
    expect(await listSettledSounds(db(), [sound.id])).toEqual([{ id: sound.id, state: 'Processed' }]);
    expect((await listUnfinishedSounds(db(), 1000)).map((s) => s.id)).not.toContain(sound.id);
  });

  it("approves a trusted uploader's sound in the same write that finishes it", async () => {
    const sound = await newSound({ trusted: true });
    expect(await state(sound.id)).toEqual(['Queued', 'pending_moderation']);
    await startStage(db(), sound.id, { stage: 'handover', progress: 0.95, attempts: 1 });
    expect(await finishProcessing(db(), sound.id, 'handover')).toBe('approved');
    expect(await getSound(db(), sound.id)).toMatchObject({
      processing_state: 'Processed',
      moderation_state: 'ok',
      processing_progress: 1,
    });
  });

  it('lets a retry enter Processing again, fails with reason and detail, and reprocesses', async () => {
    const sound = await newSound();
    await startStage(db(), sound.id, { stage: 'probe', progress: 0, attempts: 1 });
    await startStage(db(), sound.id, { stage: 'probe', progress: 0, attempts: 2 });
    await failProcessing(db(), sound.id, {
      stage: 'probe',
      reason: 'The file is empty.',
      detail: 'ffprobe: end of file',
      attempts: 2,
    });
    expect(await getSound(db(), sound.id)).toMatchObject({
      processing_state: 'Failed',
      processing_stage: 'probe',
      processing_attempts: 2,
      processing_error: 'The file is empty.\n\nffprobe: end of file',
    });
    expect(await listFailedSoundIds(db())).toContain(sound.id);
    expect(await listSettledSounds(db(), [sound.id])).toEqual([
      { id: sound.id, state: 'Failed', reason: 'The file is empty.' },
    ]);
    await reprocessSound(db(), sound.id);
    expect(await getProcessingRecord(db(), sound.id)).toMatchObject({
      state: 'Queued',
      stage: null,
      attempts: 0,
      error: null,
    });
  });

  it('refuses moves the state does not allow and leaves the record as it was', async () => {
    const sound = await newSound();
    const refused = (work: Promise<unknown>) => expect(work).rejects.toBeInstanceOf(IllegalTransitionError);
    // Queued: nothing has started, so nothing can advance, report progress or finish.
    await refused(advanceStage(db(), sound.id, { stage: 'media', progress: 0.05 }));
    await refused(reportProgress(db(), sound.id, { stage: 'probe', progress: 0.5 }));
    await refused(finishProcessing(db(), sound.id, 'handover'));
    await refused(setMediaPaths(db(), sound.id, { peaks: 'p.json' }, { stage: 'analysis', progress: 0.4 }));
    expect(await getProcessingRecord(db(), sound.id)).toMatchObject({ state: 'Queued', stage: null });
    expect((await getSound(db(), sound.id))?.media_paths).toEqual({});

    await startStage(db(), sound.id, { stage: 'probe', progress: 0, attempts: 1 });
    await failProcessing(db(), sound.id, { stage: 'probe', reason: 'bad', attempts: 1 });
    // Failed: a stale job can neither start, fail again nor finish it.
    await refused(startStage(db(), sound.id, { stage: 'media', progress: 0.05, attempts: 1 }));
    await refused(failProcessing(db(), sound.id, { stage: 'media', reason: 'other', attempts: 1 }));
    await refused(finishProcessing(db(), sound.id, 'handover'));
    expect(await getSound(db(), sound.id)).toMatchObject({
      processing_state: 'Failed',
      processing_error: 'bad',
    });

    await moderateSound(db(), sound.id, 'reject');
    await refused(moderateSound(db(), sound.id, 'approve'));
    expect(await state(sound.id)).toEqual(['Failed', 'rejected']);

    await expect(
      startStage(db(), 999_999, { stage: 'probe', progress: 0, attempts: 1 }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it('moderates in bulk only the sounds waiting for a moderator', async () => {
    const [a, b, c] = [await newSound(), await newSound(), await newSound()];
    await moderateSound(db(), c.id, 'approve');
    expect(await moderateSounds(db(), [a.id, b.id, c.id], 'approve', null)).toEqual(
      expect.arrayContaining([a.id, b.id]),
    );
    expect(await moderateSounds(db(), [a.id, c.id], 'reject')).toEqual([]);
    expect(await state(a.id)).toEqual(['Queued', 'ok']);
    expect((await getSound(db(), a.id))?.moderated_at).toBeInstanceOf(Date);
  });

  it('keeps the reason of a rejection, and none for an approval', async () => {
    const [a, b] = [await newSound(), await newSound()];
    expect(await moderateSounds(db(), [a.id], 'reject', null, 'Not a sound: silence only')).toEqual([a.id]);
    await moderateSound(db(), b.id, 'approve', null, 'ignored');
    expect((await getSound(db(), a.id))?.moderation_reason).toBe('Not a sound: silence only');
    expect((await getSound(db(), b.id))?.moderation_reason).toBeNull();
  });
});
