import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { LicenseName, PackView } from '@earshot/catalogue';
import yazl from 'yazl';

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
 * the CPU the throughput target leaves no room for). The files are stat'ed up front, so a missing
 * file is left out (and named in the readme) instead of breaking the stream halfway; then each is
 * opened only when its turn comes, so memory stays flat whatever the number of sounds.
 */
export async function packZip(input: {
  pack: PackView;
  sounds: readonly ZippedSound[];
  origin: string;
}): Promise<{ stream: Readable; included: number }> {
  const stats = await Promise.all(input.sounds.map((s) => fs.promises.stat(s.file).catch(() => undefined)));
  const present = input.sounds.filter((_, i) => stats[i]?.isFile());
  const missing = input.sounds.filter((_, i) => !stats[i]?.isFile());
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(readme(input.pack, present, missing, input.origin)), README_NAME, {
    compress: false,
  });
  input.sounds.forEach((sound, i) => {
    const stat = stats[i];
    if (!stat?.isFile()) return;
    zip.addReadStreamLazy(
      sound.entryName,
      { size: stat.size, mtime: stat.mtime, mode: 0o100644, compress: false },
      (done) => done(null, fs.createReadStream(sound.file, { highWaterMark: READ_CHUNK })),
    );
  });
  // A file that vanishes after its stat breaks the stream: the client sees an aborted download,
  // never a zip that looks complete but is not.
  const stream = zip.outputStream as unknown as Readable;
  zip.on('error', (err: Error) => stream.destroy(err));
  zip.end();
  return { stream, included: present.length };
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
