import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import {
  type Db,
  encodeChangeCursor,
  latestSoundChange,
  publicSoundRecordsAfter,
  type SoundRecord,
} from '@earshot/catalogue';
import { DEFAULT_SIMILARITY_SPACE } from '@earshot/core';
import { soundCredit } from '../downloads/credits.ts';

/** What the latest export is: its file, when it was made, how many sounds, and where the changes feed picks up. */
export interface ExportInfo {
  /** The file's name inside the exports folder. */
  file: string;
  created: string;
  sounds: number;
  /** The changes feed's cursor (`since`) from which every change after the export follows. */
  cursor: string;
}

const INFO_NAME = 'catalogue.json';
const BATCH = 1000;

/** Where exports live: `<DATA_DIR>/exports/`. */
export function exportsDir(dataDir: string): string {
  return path.join(dataDir, 'exports');
}

/** One line of the export: the sound's public record with its page, licence deed and credit line. */
export function exportLine(sound: SoundRecord, origin: string): Record<string, unknown> {
  const credit = soundCredit(origin, sound);
  return {
    id: sound.id,
    url: credit.url,
    name: sound.name,
    tags: sound.tags,
    description: sound.description,
    username: sound.username,
    pack_name: sound.pack_name,
    category: sound.category,
    subcategory: sound.subcategory,
    geotag:
      sound.geotag_lat !== null && sound.geotag_lon !== null ? [sound.geotag_lat, sound.geotag_lon] : null,
    created: sound.created.toISOString(),
    license: sound.license,
    license_url: credit.license_url,
    attribution: credit.attribution,
    type: sound.type,
    channels: sound.channels,
    samplerate: sound.samplerate,
    bitdepth: sound.bitdepth,
    duration: sound.duration,
    filesize: sound.filesize === null ? null : Number(sound.filesize),
    md5: sound.md5,
    is_explicit: sound.is_explicit,
  };
}

/**
 * Writes the public catalogue as gzipped JSON Lines, one sound a line in id order, and makes it the
 * latest export. The changes feed's position is read first: every change committed after it is in
 * the feed after the cursor the export names, so a client loads the file and then follows the feed
 * from there (a change seen in both is applied twice, harmlessly). The file is written beside its
 * final name and renamed; the info file, renamed last, is what readers go by, so a reader never
 * sees a half-written export, and a writer that dies leaves the previous export served. One writer
 * at a time (`runCatalogueExport` holds the export's lease): what a dead writer left half-written is
 * removed here, and so are the exports before the previous one (kept for a download that began
 * just before this one was published). `signal` stops the writer before it publishes anything.
 */
export async function writeCatalogueExport(
  db: Db,
  dataDir: string,
  origin: string,
  onProgress?: (sounds: number) => void,
  signal?: AbortSignal,
): Promise<ExportInfo> {
  const dir = exportsDir(dataDir);
  await fs.promises.mkdir(dir, { recursive: true });
  for (const name of await fs.promises.readdir(dir))
    if (name.startsWith('.catalogue-') && name.endsWith('.partial'))
      await fs.promises.rm(path.join(dir, name), { force: true });
  const cursor = encodeChangeCursor(await latestSoundChange(db));
  const created = new Date();
  const file = `catalogue-${created.toISOString().replace(/[:.]/g, '-')}.jsonl.gz`;
  const partial = path.join(dir, `.${file}.partial`);
  let sounds = 0;
  async function* lines(): AsyncGenerator<string> {
    for (let after = 0; ; ) {
      signal?.throwIfAborted();
      const batch = await publicSoundRecordsAfter(db, after, BATCH, DEFAULT_SIMILARITY_SPACE);
      if (batch.length === 0) return;
      yield `${batch.map((sound) => JSON.stringify(exportLine(sound, origin))).join('\n')}\n`;
      sounds += batch.length;
      onProgress?.(sounds);
      after = batch[batch.length - 1].id;
    }
  }
  try {
    await pipeline(lines(), createGzip(), fs.createWriteStream(partial));
    signal?.throwIfAborted();
    await fs.promises.rename(partial, path.join(dir, file));
  } catch (err) {
    await fs.promises.rm(partial, { force: true });
    throw err;
  }
  const previous = await latestExport(dataDir);
  const info: ExportInfo = { file, created: created.toISOString(), sounds, cursor };
  const infoPartial = path.join(dir, `.${INFO_NAME}.partial`);
  const out = fs.createWriteStream(infoPartial);
  out.end(`${JSON.stringify(info, null, 2)}\n`);
  await once(out, 'close');
  await fs.promises.rename(infoPartial, path.join(dir, INFO_NAME));
  for (const old of await fs.promises.readdir(dir))
    if (old.startsWith('catalogue-') && old !== file && old !== previous?.file)
      await fs.promises.rm(path.join(dir, old), { force: true });
  return info;
}

/** The latest export, or undefined when none was made. */
export async function latestExport(dataDir: string): Promise<(ExportInfo & { path: string }) | undefined> {
  const dir = exportsDir(dataDir);
  try {
    const info = JSON.parse(await fs.promises.readFile(path.join(dir, INFO_NAME), 'utf8')) as ExportInfo;
    return { ...info, path: path.join(dir, info.file) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
