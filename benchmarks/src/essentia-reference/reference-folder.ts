/**
 * essentia.js reference trees for folders of audio: one JSON per recording in the native extractor's
 * shape, cached under the system's temp folder keyed by the audio's hash and a hash of this tool's code
 * and of essentia.js's version, so a change to either recomputes them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeMono } from '@earshot/core';
import { ReferenceRunner } from './reference-runner.ts';

type Tree = Record<string, any>;

const AUDIO = /\.(flac|wav|aif|aiff|mp3|ogg|m4a)$/i;
const here = path.dirname(fileURLToPath(import.meta.url));
export const REFERENCE_CACHE_DIR = path.join(os.tmpdir(), 'earshot-essentia-js-reference');

export interface AudioFile {
  /** The file name without its extension (the JSON's name). */
  name: string;
  file: string;
}

/**
 * The audio files of a folder, sorted by name. Of files that share a name (`bd_haus.aiff` and
 * `bd_haus.flac` in the samples package, the same audio) the first is kept: one JSON per name.
 */
export function audioFiles(dir: string): AudioFile[] {
  const seen = new Set<string>();
  const out: AudioFile[] = [];
  for (const f of fs.readdirSync(dir).sort()) {
    const name = path.parse(f).name;
    if (!AUDIO.test(f) || seen.has(name)) continue;
    seen.add(name);
    out.push({ name, file: path.join(dir, f) });
  }
  return out;
}

/** The sources that decide a reference tree's values. */
const TREE_SOURCES = ['essentia-js.ts', 'extractor.ts', 'filterbank.ts', 'frames.ts', 'pool-aggregator.ts'];

/** A hash of the sources that compute the trees and of the essentia.js release they run. */
export function toolVersion(): string {
  const hash = createHash('sha256');
  for (const f of TREE_SOURCES) hash.update(f).update(fs.readFileSync(path.join(here, f)));
  const require = createRequire(import.meta.url);
  hash.update(JSON.stringify((require('essentia.js/package.json') as { version: string }).version));
  return hash.digest('hex').slice(0, 16);
}

/**
 * The reference tree of each file (computed, or read from the cache), with a counter on stderr. A file
 * the chains fail on is reported and left out.
 */
export async function essentiaJsReferences(
  files: readonly AudioFile[],
  opts: { label: string; useCache?: boolean } = { label: 'essentia.js reference' },
): Promise<Map<string, Tree>> {
  const version = toolVersion();
  fs.mkdirSync(REFERENCE_CACHE_DIR, { recursive: true });
  const runner = new ReferenceRunner(path.join(REFERENCE_CACHE_DIR, `filterbanks-${version}.json`));
  const out = new Map<string, Tree>();
  const t0 = performance.now();
  let computed = 0;
  try {
    for (const [i, { name, file }] of files.entries()) {
      process.stderr.write(`\r${opts.label}: ${i + 1}/${files.length} ${name.padEnd(24)}`);
      const audioHash = createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);
      const cached = path.join(REFERENCE_CACHE_DIR, `${name}-${audioHash}-${version}.json`);
      if (opts.useCache !== false && fs.existsSync(cached)) {
        out.set(name, JSON.parse(fs.readFileSync(cached, 'utf8')));
        continue;
      }
      try {
        const { samples, sampleRate } = await decodeMono(file);
        const tree = await runner.tree(samples, sampleRate);
        tree.metadata = {
          tags: { file_name: path.basename(file) },
          version: { extractor: `essentia.js ${version}` },
        };
        fs.writeFileSync(cached, JSON.stringify(tree));
        out.set(name, tree);
        computed++;
      } catch (error) {
        process.stderr.write(`\n${name}: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  } finally {
    await runner.close();
  }
  process.stderr.write(
    `\r${opts.label}: ${out.size} of ${files.length} (computed ${computed}, cached ${out.size - computed}; tool ${version}) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return out;
}

/** Writes one `<name>.json` per tree into `dir`. */
export function writeReferenceFolder(dir: string, trees: ReadonlyMap<string, Tree>): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, tree] of trees)
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(tree, null, 1));
}
