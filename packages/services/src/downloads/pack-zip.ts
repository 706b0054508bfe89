import type { Readable } from 'node:stream';
import { LICENSE_DEEDS, type LicenseName, type PackView } from '@earshot/catalogue';
import { CREDITS_JSON_NAME, creditsJson, soundCredit } from './credits.ts';
import { storedZip, type ZipEntry } from './stored-zip.ts';

export interface ZippedSound {
  id: number;
  name: string;
  username: string;
  license: LicenseName;
  /** Absolute path of the original. */
  file: string;
  entryName: string;
  /** CRC-32 of the original when the catalogue has it (else computed while the zip is written). */
  crc32: number | null;
}

/** The attribution file's name inside the zip (the name the original service gives it). */
export const README_NAME = '_readme_and_license.txt';

/**
 * A pack as one zip, with the credits of the sounds it holds as JSON (`_credits.json`) and in the
 * readme (each sound's credit line), stored without compression (audio barely compresses, and deflating would cost
 * the CPU the throughput target leaves no room for), written by storedZip as it is read: the first
 * bytes go out at once and one file is open at a time, whatever the number of sounds, so memory
 * stays flat. A file missing on disk is left out (and out of the credits) and named in the readme,
 * which therefore comes last, after the credits; a file that fails halfway breaks the stream, so the client sees an aborted download, never
 * a zip that looks complete but is not. The sounds may come as they are read from the catalogue
 * (an async iterable): the first entry leaves before the last row is read. `beforeEnd` is awaited
 * before the readme: what must be done before the download is complete (counting it) runs beside
 * the transfer instead of ahead of the first byte, and its failure aborts the zip.
 */
export function packZip(input: {
  pack: PackView;
  sounds: Iterable<ZippedSound> | AsyncIterable<ZippedSound>;
  origin: string;
  beforeEnd?: () => Promise<unknown>;
}): Readable {
  const bySound = new Map<ZipEntry, ZippedSound>();
  const missing = new Set<ZippedSound>();
  const present: ZippedSound[] = [];
  async function* entries(): AsyncGenerator<ZipEntry> {
    for await (const sound of input.sounds) {
      const entry = { name: sound.entryName, file: sound.file, crc32: sound.crc32 };
      bySound.set(entry, sound);
      yield entry;
      // storedZip asks for the next entry only once this one is written (or found missing).
      bySound.delete(entry);
      if (!missing.has(sound)) present.push(sound);
    }
    await input.beforeEnd?.();
    const credits = present.map((sound) => soundCredit(input.origin, sound));
    const title = `Pack "${input.pack.name}" by ${input.pack.username}`;
    yield { name: CREDITS_JSON_NAME, data: Buffer.from(creditsJson(title, credits)) };
    const text = readme(input.pack, present, [...missing], input.origin);
    yield { name: README_NAME, data: Buffer.from(text) };
  }
  return storedZip(entries(), {
    onMissing: (entry) => missing.add(bySound.get(entry) as ZippedSound),
  });
}

function readme(
  pack: PackView,
  present: readonly ZippedSound[],
  missing: readonly ZippedSound[],
  origin: string,
): string {
  const lines = [
    `Pack "${pack.name}" by ${pack.username}`,
    `${origin}/apiv2/packs/${pack.id}/`,
    '',
    'Each sound is shared under the licence named below. When you use a sound, follow its licence:',
    'Attribution and Attribution NonCommercial ask you to credit the author (and the second forbids',
    'commercial use); Creative Commons 0 asks nothing.',
    '',
    'Sounds in this pack:',
    '',
  ];
  for (const s of present) {
    lines.push(
      `${s.entryName}`,
      `  "${s.name}" by ${s.username}, ${origin}/apiv2/sounds/${s.id}/`,
      `  licence: ${s.license} (${LICENSE_DEEDS[s.license]})`,
      `  credit: ${soundCredit(origin, s).attribution}`,
      '',
    );
  }
  if (missing.length > 0) {
    lines.push('Not included (the file is not available at the moment):', '');
    for (const s of missing) lines.push(`  "${s.name}" by ${s.username}, ${origin}/apiv2/sounds/${s.id}/`);
    lines.push('');
  }
  return lines.join('\n');
}
