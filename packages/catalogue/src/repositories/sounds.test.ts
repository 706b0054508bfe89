import { testService } from '@earshot/common/testing';
import type { VariantATree, VariantB } from '@earshot/core';
import { describe, expect, it } from 'vitest';
import {
  setModerationState,
  setProcessingState,
  testBackends,
  useRepositoryCatalogue,
} from '../testing/index.ts';
import {
  getAnalysis,
  getSimilarityVector,
  listStaleAnalyses,
  setAnalysis,
  setSimilarityVector,
  similaritySpaces,
} from './analysis.ts';
import { publicVectorBatch } from './analysis-reads.ts';
import { deletePack, findOrCreatePack, getPack, listPacksByUser } from './packs.ts';
import {
  createSound,
  DuplicateSoundFileError,
  deleteSound,
  editSound,
  getPublicSound,
  getPublicSounds,
  getSound,
  listModerationQueue,
  listPendingSounds,
  listSoundsByPack,
  listSoundsByUser,
  type NewSound,
  setMediaPaths,
  setProbe,
  setRemixSources,
} from './sounds.ts';
import { addPendingUpload, listPendingUploads, takePendingUpload } from './uploads.ts';
import { createUser, userCounts } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('sound repositories on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  const described = (userId: number, extra: Partial<NewSound> = {}): NewSound => ({
    userId,
    name: unique('sound '),
    description: 'rain on a tin roof',
    tags: ['Rain', 'roof', 'rain', ' field-recording '],
    license: 'Creative Commons 0',
    originalFilename: 'rain.wav',
    originalPath: `${unique('originals/')}.wav`,
    ...extra,
  });

  async function publish(id: number) {
    await setProcessingState(db(), id, { state: 'Processed', stage: null, progress: 1 });
    await setModerationState(db(), id, 'ok', null);
  }

  it('creates a queued sound pending moderation with normalized tags in both tag stores', async () => {
    const user = await createUser(db(), { username: unique('uploader') });
    const sound = await createSound(db(), described(user.id, { geotag: { lat: 41.4, lon: 2.17, zoom: 14 } }));
    expect(sound).toMatchObject({
      username: user.username,
      pack_name: null,
      processing_state: 'Queued',
      moderation_state: 'pending_moderation',
      processing_attempts: 0,
      tags: ['rain', 'roof', 'field-recording'],
      is_geotagged: true,
      geotag_lat: 41.4,
      num_downloads: 0,
      avg_rating: 0,
      is_remix: false,
    });
    const rows = await db()
      .selectFrom('sound_tags')
      .innerJoin('tags', 'tags.id', 'sound_tags.tag_id')
      .select('tags.name')
      .where('sound_tags.sound_id', '=', sound.id)
      .orderBy('tags.name')
      .execute();
    expect(rows.map((r) => r.name)).toEqual(['field-recording', 'rain', 'roof']);
  });

  it('skips moderation for a trusted uploader', async () => {
    const user = await createUser(db(), { username: unique('trusted'), isTrusted: true });
    expect((await createSound(db(), described(user.id))).moderation_state).toBe('ok');
  });

  it('hides a sound until it is both processed and approved', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const sound = await createSound(db(), described(user.id));
    expect(await getPublicSound(db(), sound.id)).toBeUndefined();
    await setProcessingState(db(), sound.id, { state: 'Processed' });
    expect(await getPublicSound(db(), sound.id)).toBeUndefined();
    expect((await listPendingSounds(db(), user.id)).pending_moderation.map((s) => s.id)).toEqual([sound.id]);
    expect((await listModerationQueue(db(), { limit: 100, offset: 0 })).items.map((s) => s.id)).toContain(
      sound.id,
    );
    await setModerationState(db(), sound.id, 'ok', null);
    expect((await getPublicSound(db(), sound.id))?.id).toBe(sound.id);
    expect(await userCounts(db(), user.id)).toMatchObject({ num_sounds: 1 });
    expect(await listPendingSounds(db(), user.id)).toEqual({
      pending_processing: [],
      pending_moderation: [],
    });
  });

  it('records processing stage, progress, attempts and the failure reason', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const sound = await createSound(db(), described(user.id));
    await setProcessingState(db(), sound.id, {
      state: 'Processing',
      stage: 'previews',
      progress: 0.25,
      newAttempt: true,
    });
    await setProcessingState(db(), sound.id, {
      state: 'Failed',
      error: 'conversion to mp3 (preview) has failed',
    });
    await setProcessingState(db(), sound.id, {
      state: 'Processing',
      stage: 'probe',
      progress: 0,
      error: null,
      newAttempt: true,
    });
    const after = await getSound(db(), sound.id);
    expect(after).toMatchObject({
      processing_state: 'Processing',
      processing_stage: 'probe',
      processing_progress: 0,
      processing_attempts: 2,
      processing_error: null,
    });
    expect((await listPendingSounds(db(), user.id)).pending_processing.map((s) => s.id)).toEqual([sound.id]);
    await expect(setProcessingState(db(), sound.id, { state: 'Done' as never })).rejects.toThrow(/check/i);
  });

  it('stores the probe, refuses a second sound with the same file md5, and merges media paths', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const a = await createSound(db(), described(user.id));
    const probe = {
      type: 'wav',
      channels: 2,
      filesize: 3_000_000_000,
      bitrate: 0,
      bitdepth: 16,
      duration: 2.5,
      samplerate: 44100,
      md5: 'd41d8cd98f00b204e9800998ecf8427e',
    } as const;
    await setProbe(db(), a.id, probe);
    expect(await getSound(db(), a.id)).toMatchObject(probe);
    await expect(createSound(db(), described(user.id, { md5: probe.md5 }))).rejects.toBeInstanceOf(
      DuplicateSoundFileError,
    );
    await setMediaPaths(db(), a.id, { 'preview-hq-mp3': 'previews/1/a-hq.mp3' });
    await setMediaPaths(db(), a.id, { waveform_m: 'displays/1/a_wave_M.png' });
    expect((await getSound(db(), a.id))?.media_paths).toEqual({
      'preview-hq-mp3': 'previews/1/a-hq.mp3',
      waveform_m: 'displays/1/a_wave_M.png',
    });
  });

  it('edits only the given fields and replaces tags when given', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const sound = await createSound(
      db(),
      described(user.id, { category: 'Sound effects', subcategory: 'Animals' }),
    );
    await editSound(db(), sound.id, {
      description: 'now described',
      tags: ['cat', 'purr', 'CAT'],
      geotag: null,
    });
    const after = await getSound(db(), sound.id);
    expect(after).toMatchObject({
      name: sound.name,
      description: 'now described',
      tags: ['cat', 'purr'],
      is_geotagged: false,
      category_code: 'fx-a',
      license: 'Creative Commons 0',
    });
  });

  it('derives category_code from the category names and marks a given category as the uploader’s', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const given = await createSound(db(), described(user.id, { category: 'Music', subcategory: 'Other' }));
    expect(given).toMatchObject({ category_code: 'm-other', category_is_user_provided: true });
    const none = await createSound(db(), described(user.id));
    expect(none).toMatchObject({ category: null, category_code: null, category_is_user_provided: false });
    // Changing one name derives the code again from both.
    await editSound(db(), given.id, { subcategory: 'Solo percussion' });
    expect(await getSound(db(), given.id)).toMatchObject({ category: 'Music', category_code: 'm-sp' });
    await editSound(db(), given.id, { category: 'Speech', subcategory: 'Other' });
    expect(await getSound(db(), given.id)).toMatchObject({ category_code: 'sp-other' });
    await editSound(db(), given.id, { category: null, subcategory: null });
    expect(await getSound(db(), given.id)).toMatchObject({ category_code: null });
  });

  it('keeps is_remix and was_remixed true to the remix links', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const source = await createSound(db(), described(user.id));
    const remix = await createSound(db(), described(user.id, { remixOf: [source.id] }));
    expect((await getSound(db(), remix.id))?.is_remix).toBe(true);
    expect((await getSound(db(), source.id))?.was_remixed).toBe(true);
    await setRemixSources(db(), remix.id, []);
    expect((await getSound(db(), remix.id))?.is_remix).toBe(false);
    expect((await getSound(db(), source.id))?.was_remixed).toBe(false);
  });

  it('lists a user’s and a pack’s public sounds newest first with exact counts', async () => {
    const user = await createUser(db(), { username: unique('packer') });
    const pack = await findOrCreatePack(db(), user.id, 'Field trip');
    expect((await findOrCreatePack(db(), user.id, 'Field trip')).id).toBe(pack.id);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await createSound(db(), described(user.id, { packId: pack.id }));
      ids.push(s.id);
      if (i !== 2) await publish(s.id);
    }
    const visible = ids.filter((_, i) => i !== 2).reverse();
    const page1 = await listSoundsByUser(db(), user.id, { limit: 3, offset: 0 });
    const page2 = await listSoundsByUser(db(), user.id, { limit: 3, offset: 3 });
    expect(page1.count).toBe(4);
    expect([...page1.items, ...page2.items].map((s) => s.id)).toEqual(visible);
    expect(page1.items[0].pack_name).toBe('Field trip');
    expect((await listSoundsByPack(db(), pack.id, { limit: 10, offset: 0 })).items.map((s) => s.id)).toEqual(
      visible,
    );
    expect(await getPack(db(), pack.id)).toMatchObject({
      name: 'Field trip',
      username: user.username,
      num_sounds: 4,
      num_downloads: 0,
    });
    expect((await getPublicSounds(db(), [ids[4], ids[2], ids[0]])).map((s) => s.id)).toEqual([
      ids[4],
      ids[0],
    ]);

    const second = await findOrCreatePack(db(), user.id, 'Second');
    // A pack is public only while it holds a public sound (issue 31).
    expect((await listPacksByUser(db(), user.id, { limit: 10, offset: 0 })).count).toBe(1);
    await publish((await createSound(db(), described(user.id, { packId: second.id }))).id);
    const packs = await listPacksByUser(db(), user.id, { limit: 10, offset: 0 });
    expect(packs.count).toBe(2);
    expect(packs.items.map((p) => p.id)).toEqual([second.id, pack.id]);
    await deletePack(db(), pack.id);
    expect((await getSound(db(), ids[0]))?.pack_id).toBeNull();
  });

  it('stores typed descriptors, both full analyses and per-space vectors', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const sound = await createSound(db(), described(user.id));
    await publish(sound.id);
    // Partial records: the repository stores whatever the analysis gave, as jsonb.
    const analysisB = {
      bpm: 120,
      loopable: true,
      tonality: 'A# minor',
      mfcc: [1, 2, 3],
    } as unknown as VariantB;
    await setAnalysis(db(), sound.id, {
      values: { bpm: 120, loopable: true, tonality: 'A# minor', spectral_centroid: 1234.5 },
      analysisB,
      analysisA: { rhythm: { bpm: 120.2 } },
      analyzer: 'test',
    });
    const stored = await getAnalysis(db(), sound.id);
    expect(stored).toMatchObject({
      bpm: 120,
      loopable: true,
      tonality: 'A# minor',
      spectral_centroid: 1234.5,
      pitch: null,
      analysis_b: analysisB,
      analysis_a: { rhythm: { bpm: 120.2 } },
    });
    await setAnalysis(db(), sound.id, {
      values: { bpm: 90 },
      analysisB: {} as VariantB,
      analysisA: {} as VariantATree,
      analyzer: 'test',
    });
    expect(await getAnalysis(db(), sound.id)).toMatchObject({ bpm: 90, loopable: null, tonality: null });

    await setSimilarityVector(db(), sound.id, 'space-a', [0.5, -0.25, 1]);
    await setSimilarityVector(db(), sound.id, 'space-a', [0.25, 0.5, 1]);
    await setSimilarityVector(db(), sound.id, 'space-b', [1, 2]);
    expect(await getSimilarityVector(db(), sound.id, 'space-a')).toEqual([0.25, 0.5, 1]);
    expect(await getSimilarityVector(db(), sound.id, 'space-c')).toBeUndefined();
    expect(await publicVectorBatch(db(), 'space-a', { afterId: 0, limit: 10 })).toEqual([
      { id: sound.id, vector: [0.25, 0.5, 1] },
    ]);
    expect(await similaritySpaces(db())).toEqual([
      { space: 'space-a', count: 1, dims: 3 },
      { space: 'space-b', count: 1, dims: 2 },
    ]);
  });

  it("lists the analyses an analyzer's other versions made, not its current one's nor another analyzer's", async () => {
    const user = await createUser(db(), { username: unique('u') });
    const made = async (analyzer: string, extractor?: string) => {
      const sound = await createSound(db(), described(user.id));
      const analysisA = (extractor ? { metadata: { version: { extractor } } } : {}) as VariantATree;
      await setAnalysis(db(), sound.id, { values: {}, analysisB: {} as VariantB, analysisA, analyzer });
      return sound.id;
    };
    const current = await made('stale-test', 'v2');
    const older = await made('stale-test', 'v1');
    const unmarked = await made('stale-test');
    const other = await made('stale-test-other', 'v1');
    const stale = await listStaleAnalyses(db(), 'stale-test', 'v2');
    expect(stale).toEqual([older, unmarked]);
    expect(stale).not.toContain(current);
    expect(await listStaleAnalyses(db(), 'stale-test-other', 'v1')).toEqual([]);
    expect(await listStaleAnalyses(db(), 'stale-test-other', 'v2')).toEqual([other]);
  });

  it('keeps pending uploads per user by file name until they are described', async () => {
    const user = await createUser(db(), { username: unique('u') });
    await addPendingUpload(db(), {
      userId: user.id,
      filename: 'a.wav',
      storedPath: 'uploads/1/a.wav',
      filesize: 1234,
    });
    await addPendingUpload(db(), {
      userId: user.id,
      filename: 'b.flac',
      storedPath: 'uploads/1/b.flac',
      filesize: 99,
    });
    await expect(
      addPendingUpload(db(), { userId: user.id, filename: 'a.wav', storedPath: 'x', filesize: 1 }),
    ).rejects.toThrow(/already pending/);
    expect((await listPendingUploads(db(), user.id)).map((u) => u.filename)).toEqual(['a.wav', 'b.flac']);
    expect((await takePendingUpload(db(), user.id, 'a.wav'))?.stored_path).toBe('uploads/1/a.wav');
    expect(await takePendingUpload(db(), user.id, 'a.wav')).toBeUndefined();
    expect((await listPendingUploads(db(), user.id)).map((u) => u.filename)).toEqual(['b.flac']);
  });

  it('deletes a sound with everything that hangs off it', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const sound = await createSound(db(), described(user.id));
    await setSimilarityVector(db(), sound.id, 'space-d', [1]);
    expect(await deleteSound(db(), sound.id)).toBe(true);
    expect(await getSound(db(), sound.id)).toBeUndefined();
    expect(await getSimilarityVector(db(), sound.id, 'space-d')).toBeUndefined();
    expect(await deleteSound(db(), sound.id)).toBe(false);
  });
});
