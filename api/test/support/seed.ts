import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Catalogue, LicenseName } from '@earshot/catalogue';
import {
  insertSeedComment,
  insertSeedDescriptors,
  insertSeedPack,
  insertSeedSound,
  insertSeedUser,
  insertSeedVector,
  updateSeedSound,
} from '@earshot/catalogue/testing';
import {
  type AnalysisTree,
  FREESOUND_CLASSIC,
  processFile,
  readDescriptor,
  similarityVectorFromAnalysis,
} from '@earshot/core';
import { ESSENTIA_REFERENCE_DIR } from '@earshot/fixtures';
import { createApiCredential } from '@earshot/services';

/**
 * Seeds a catalogue for black-box API tests with real recordings processed for real: the CC0
 * Sonic Pi samples go through `processFile` (previews, images, peaks), and their analysis is the
 * native Essentia extractor output kept in the shared reference folder, from which the similarity
 * vector is computed by the engine's own space definition. Used until the pipeline seeds for us.
 */

const REFERENCE_DIR = ESSENTIA_REFERENCE_DIR;

export interface SeedSound {
  sample: string;
  user: 'alice' | 'bob';
  name: string;
  tags: string[];
  description: string;
  license: LicenseName;
  pack?: string;
  geotag?: [number, number];
  /** Not yet approved: the API must act as if it did not exist. */
  pending?: boolean;
  /** Processed but without analysis or similarity vector. */
  unanalyzed?: boolean;
  /** Minutes after the base time, so creation order is known. */
  minute: number;
}

export const SEED_SOUNDS: SeedSound[] = [
  {
    sample: 'bd_808',
    user: 'alice',
    name: 'Kick 808',
    tags: ['kick', 'drum', '808'],
    description: 'A deep kick drum',
    license: 'Creative Commons 0',
    pack: 'Drums',
    minute: 1,
  },
  {
    sample: 'bd_fat',
    user: 'alice',
    name: 'Fat kick',
    tags: ['kick', 'drum', 'fat'],
    description: 'A fat kick drum',
    license: 'Attribution',
    pack: 'Drums',
    minute: 2,
  },
  {
    sample: 'hat_cab',
    user: 'alice',
    name: 'Cabasa hat',
    tags: ['hat', 'drum', 'metal'],
    description: 'A short bright hat',
    license: 'Attribution',
    pack: 'Drums',
    minute: 3,
  },
  {
    sample: 'elec_wood',
    user: 'bob',
    name: 'Electric chime',
    tags: ['chime', 'bell', 'electronic'],
    description: 'A ringing chime',
    license: 'Attribution NonCommercial',
    geotag: [41.3851, 2.1734],
    minute: 4,
  },
  {
    sample: 'elec_twip',
    user: 'bob',
    name: 'Twip',
    tags: ['electronic', 'blip'],
    description: 'A short electronic blip',
    license: 'Creative Commons 0',
    minute: 5,
  },
  {
    sample: 'tabla_ke1',
    user: 'bob',
    name: 'Tabla ke',
    tags: ['tabla', 'drum', 'percussion'],
    description: 'A tabla stroke',
    license: 'Creative Commons 0',
    minute: 6,
  },
  {
    sample: 'bd_klub',
    user: 'alice',
    name: 'Club kick',
    tags: ['kick', 'drum', 'club'],
    description: 'A punchy club kick',
    license: 'Attribution',
    minute: 7,
  },
  {
    sample: 'hat_sci',
    user: 'bob',
    name: 'Metal hat',
    tags: ['hat', 'metal'],
    description: 'Pending moderation',
    license: 'Attribution',
    pending: true,
    minute: 8,
  },
  {
    sample: 'perc_snap',
    user: 'bob',
    name: 'Finger snap',
    tags: ['snap', 'percussion'],
    description: 'Not analyzed yet',
    license: 'Attribution',
    unanalyzed: true,
    minute: 9,
  },
];

export const BASE_TIME = Date.UTC(2024, 0, 15, 10, 0, 0, 123);

export interface Seeded {
  /** Sound id by sample name. */
  ids: Record<string, number>;
  userIds: Record<string, number>;
  packId: number;
  apiKey: string;
  clientId: string;
}

function samplesDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('supersonic-scsynth-samples/package.json')), 'samples');
}

/** The recording a seed sound is made from (the CC0 Sonic Pi sample of that name). */
export function seedSamplePath(sample: string): string {
  return path.join(samplesDir(), `${sample}.flac`);
}

export async function seedCatalogue(
  catalogue: Catalogue,
  dataDir: string,
  sounds = SEED_SOUNDS,
): Promise<Seeded> {
  const db = catalogue.db;
  const userIds: Record<string, number> = {};
  for (const [i, username] of ['alice', 'bob'].entries()) {
    userIds[username] = await insertSeedUser(db, {
      username,
      password_hash: null,
      avatar_path: null,
      about: username === 'alice' ? 'I record drums.' : '',
      homepage: username === 'alice' ? 'https://alice.example.org' : '',
      date_joined: new Date(BASE_TIME - (2 - i) * 86_400_000),
    });
  }
  const packId = await insertSeedPack(db, {
    user_id: userIds.alice,
    name: 'Drums',
    description: 'Some drums',
    created: new Date(BASE_TIME),
  });
  await insertSeedPack(db, { user_id: userIds.alice, name: 'Empty', created: new Date(BASE_TIME + 1000) });

  const ids: Record<string, number> = {};
  const source = samplesDir();
  for (const spec of sounds) {
    const input = path.join(source, `${spec.sample}.flac`);
    const id = await insertSeedSound(db, {
      user_id: userIds[spec.user],
      pack_id: spec.pack ? packId : null,
      name: spec.name,
      description: spec.description,
      tags: spec.tags,
      license: spec.license,
      category: 'Instrument samples',
      subcategory: 'Percussion',
      category_code: 'is-p',
      category_is_user_provided: true,
      geotag_lat: spec.geotag?.[0] ?? null,
      geotag_lon: spec.geotag?.[1] ?? null,
      original_filename: `${spec.sample}.flac`,
      original_path: '',
      created: new Date(BASE_TIME + spec.minute * 60_000),
      moderation_state: spec.pending ? 'pending_moderation' : 'ok',
      processing_state: 'Processed',
    });
    ids[spec.sample] = id;
    const soundDir = path.join(dataDir, 'sounds', String(id % 1000), String(id));
    const mediaDir = path.join(soundDir, 'media');
    await fs.mkdir(soundDir, { recursive: true });
    // The original is kept under DATA_DIR, as intake stores it (downloads serve nothing outside).
    const original = path.join(soundDir, 'original.flac');
    await fs.copyFile(input, original);
    const result = await processFile(input, mediaDir);
    const mediaPaths: Record<string, string> = {};
    for (const [kind, file] of Object.entries({ ...result.files.previews, ...result.files.images })) {
      mediaPaths[kind] = path.relative(dataDir, file);
    }
    mediaPaths.peaks = path.relative(dataDir, result.files.peaks);
    if (!spec.unanalyzed) {
      const tree = JSON.parse(
        await fs.readFile(path.join(REFERENCE_DIR, `${spec.sample}.json`), 'utf8'),
      ) as AnalysisTree;
      const statsFile = path.join(soundDir, 'analysis-stats.json');
      const framesFile = path.join(soundDir, 'analysis-frames.json');
      await fs.writeFile(statsFile, JSON.stringify(tree));
      await fs.writeFile(framesFile, JSON.stringify({ frame_size: 2048, hop_size: 1024, lowlevel: {} }));
      mediaPaths.analysis_stats = path.relative(dataDir, statsFile);
      mediaPaths.analysis_frames = path.relative(dataDir, framesFile);
      const consolidated = consolidate(tree);
      await insertSeedDescriptors(db, {
        sound_id: id,
        analysis_a: tree,
        analysis_b: consolidated,
        spectral_centroid: consolidated.spectral_centroid as number,
        bpm: consolidated.bpm as number,
        loudness: consolidated.loudness as number,
      });
      const vector = similarityVectorFromAnalysis(FREESOUND_CLASSIC, tree);
      await insertSeedVector(db, { sound_id: id, space: FREESOUND_CLASSIC, vector: [...vector] });
    }
    const probe = result.probe;
    await updateSeedSound(db, id, {
      media_paths: mediaPaths,
      type: probe.type,
      channels: probe.channels,
      filesize: probe.filesize,
      bitrate: probe.bitrate,
      bitdepth: probe.bitdepth,
      duration: probe.duration,
      samplerate: probe.samplerate,
      md5: probe.md5,
      crc32: probe.crc32 ?? null,
      original_path: path.relative(dataDir, original),
    });
  }
  const commenters = [
    { sound: 'bd_808', user: 'bob', text: 'Great kick!', minute: 20 },
    { sound: 'bd_808', user: 'bob', text: 'Used it in a track.', minute: 21 },
    { sound: 'bd_808', user: 'alice', text: 'Thanks!', minute: 22 },
  ];
  for (const c of commenters) {
    await insertSeedComment(db, {
      sound_id: ids[c.sound],
      user_id: userIds[c.user],
      comment: c.text,
      created: new Date(BASE_TIME + c.minute * 60_000),
    });
  }
  await updateSeedSound(db, ids.bd_808, { num_comments: 3 });
  const credential = await createApiCredential(db, {
    username: 'bob',
    name: 'Test app',
    redirectUri: 'http://127.0.0.1/callback',
    // The suites make far more than 60 requests a minute with this key: an operator would give such a
    // client a higher level, and the rate-limit suites make their own standard and strict keys.
    level: 'unlimited',
  });
  return { ids, userIds, packId, apiKey: credential.client_secret, clientId: credential.client_id };
}

/** A few variant-B consolidated descriptors read from the variant-A tree (names as the contract). */
function consolidate(tree: AnalysisTree): Record<string, unknown> {
  const pick = (p: string) => {
    const v = readDescriptor(tree, p);
    return typeof v === 'number'
      ? Math.round(v * 1000) / 1000
      : Array.isArray(v)
        ? v.map((x) => Math.round(x * 1000) / 1000)
        : null;
  };
  return {
    spectral_centroid: pick('lowlevel.spectral_centroid.mean'),
    spectral_flatness: pick('lowlevel.spectral_flatness_db.mean'),
    zero_crossing_rate: pick('lowlevel.zerocrossingrate.mean'),
    dissonance: pick('lowlevel.dissonance.mean'),
    pitch: pick('lowlevel.pitch.mean'),
    loudness: pick('lowlevel.loudness_ebu128.integrated'),
    bpm: Math.round(Number(pick('rhythm.bpm') ?? 0)),
    mfcc: pick('lowlevel.mfcc.mean'),
    log_attack_time: pick('sfx.logattacktime'),
  };
}
