import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { LicenseName, PackView } from '@earshot/catalogue';
import ZipStream from 'zip-stream';

export interface ZippedSound {
  id: number;
  name: string;
  username: string;
  license: LicenseName;
  /** Absolute path of the original. */
  file: string;
  entryName: string;
}

/** The attribution file's name inside the zip (the name the original service gives it). */
export const README_NAME = '_readme_and_license.txt';

const LICENSE_DEEDS: Record<LicenseName, string> = {
  Attribution: 'https://creativecommons.org/licenses/by/4.0/',
  'Attribution NonCommercial': 'https://creativecommons.org/licenses/by-nc/4.0/',
  'Creative Commons 0': 'https://creativecommons.org/publicdomain/zero/1.0/',
};

// Large reads: the zip's throughput is that of copying the files (the bench compares with zip -0).
const READ_CHUNK = 1024 * 1024;

/**
 * A pack as one zip, stored without compression (audio barely compresses, and deflating would cost
 * the CPU the throughput target leaves no room for). zip-stream writes each entry as its file is
 * read, so the first bytes go out at once and one file is open at a time, whatever the number of
 * sounds: memory stays flat. A file missing on disk is left out and named in the readme, which
 * therefore comes last; a file that fails halfway breaks the stream, so the client sees an aborted
 * download, never a zip that looks complete but is not.
 */
export function packZip(input: { pack: PackView; sounds: readonly ZippedSound[]; origin: string }): Readable {
  const zip = new ZipStream({ store: true });
  const add = (source: Readable | Buffer, name: string) =>
    new Promise<void>((resolve, reject) =>
      zip.entry(source, { name, store: true }, (err) => (err ? reject(err) : resolve())),
    );
  (async () => {
    const missing: ZippedSound[] = [];
    for (const sound of input.sounds) {
      const source = await openFile(sound.file);
      if (source) await add(source, sound.entryName);
      else missing.push(sound);
    }
    const present = input.sounds.filter((s) => !missing.includes(s));
    await add(Buffer.from(readme(input.pack, present, missing, input.origin)), README_NAME);
    zip.finalize();
  })().catch((err: Error) => zip.destroy(err));
  return zip as unknown as Readable;
}

/** The file opened for reading, or undefined when it is not there (or not a file) any more. */
function openFile(file: string): Promise<Readable | undefined> {
  return new Promise((resolve) => {
    const stream = fs.createReadStream(file, { highWaterMark: READ_CHUNK });
    stream.once('ready', () => resolve(stream));
    stream.once('error', () => resolve(undefined));
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
