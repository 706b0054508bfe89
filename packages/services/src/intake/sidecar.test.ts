import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { normalizeTags } from '@earshot/catalogue';
import { describe, expect, it } from 'vitest';
import { collectFiles } from './bulk-import.ts';
import { parseCsv, readSidecar } from './sidecar.ts';

describe('import sidecars', () => {
  it('parses RFC 4180 CSV: quotes, commas and newlines inside fields, doubled quotes', () => {
    expect(parseCsv('filename,description\r\na.wav,"one, two"\nb.wav,"say ""hi""\nagain"\n')).toEqual([
      ['filename', 'description'],
      ['a.wav', 'one, two'],
      ['b.wav', 'say "hi"\nagain'],
    ]);
  });

  it('prefers <file>.json, then <stem>.json, then a metadata.csv row', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-sidecar-'));
    for (const name of ['a.wav', 'b.wav', 'c.wav', 'd.wav', 'notes.txt'])
      await fs.writeFile(path.join(dir, name), '');
    await fs.writeFile(
      path.join(dir, 'a.wav.json'),
      JSON.stringify({ name: 'A', tags: ['x', 'y'], licence: 'Attribution' }),
    );
    await fs.writeFile(path.join(dir, 'b.json'), JSON.stringify({ description: 'B sound', tags: 'p q' }));
    await fs.writeFile(
      path.join(dir, 'metadata.csv'),
      'filename,name,tags,license,category\nc.wav,The C,"field-recording, rain",Creative Commons 0,fx\n',
    );

    expect(await readSidecar(path.join(dir, 'a.wav'))).toMatchObject({
      name: 'A',
      tags: ['x', 'y'],
      license: 'Attribution',
    });
    expect(await readSidecar(path.join(dir, 'b.wav'))).toMatchObject({
      description: 'B sound',
      tags: ['p', 'q'],
    });
    expect(await readSidecar(path.join(dir, 'c.wav'))).toMatchObject({
      name: 'The C',
      tags: ['field-recording', 'rain'],
      license: 'Creative Commons 0',
      category: 'fx',
    });
    expect(await readSidecar(path.join(dir, 'd.wav'))).toEqual({});
    expect((await collectFiles([dir])).map((f) => path.basename(f))).toEqual([
      'a.wav',
      'b.wav',
      'c.wav',
      'd.wav',
    ]);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('normalizes tags as upstream does: lower case, words joined by "-", no repeats', () => {
    expect(normalizeTags(['Field Recording', 'rain', 'RAIN', ' ', 'field recording'])).toEqual([
      'field-recording',
      'rain',
    ]);
  });
});
