/**
 * The consumer test of the analysis core: @earshot/common and @earshot/core packed, installed from
 * their tarballs into a project outside the repository (only the tarballs and the registry packages
 * they declare), then used there as a user would — plain JavaScript, a strict TypeScript project
 * against the declarations, and every JavaScript example of the package's README.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ffmpegPath, fixture, loadManifest, realSampleFile } from '@earshot/fixtures';
import {
  ConsumerProject,
  REPO_ROOT,
  repositoryVersion,
  runOk,
  TSC,
  undeclaredImports,
} from '@earshot/fixtures/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CONSUMER_FILES = new URL('./consumer/', import.meta.url);
/** The real recording: a drum loop of 6.9 s, 44.1 kHz stereo, with native Essentia's analysis. */
const RECORDING = 'loop_amen_full';
const GENERATED = ['drums-128bpm', 'sine-a4', 'cadence-c-major', 'noise-pink', 'bad-random'];

/** The ```js blocks of a README, in order. */
function javascriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```js[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map((m) => m[1]);
}

describe('@earshot/core installed from its tarball into a project of its own', () => {
  let project: ConsumerProject;
  /** sound.wav: the real recording as 16-bit WAV, what the README's examples read. */
  let soundWav: string;

  beforeAll(async () => {
    project = await ConsumerProject.create('core', {
      packages: ['@earshot/common', '@earshot/core'],
      dependencies: ['@earshot/core'],
      registryPackages: [repositoryVersion('@types/node')],
    });
    soundWav = path.join(project.dir, 'sound.wav');
    await runOk(
      ffmpegPath(),
      ['-v', 'error', '-i', realSampleFile(RECORDING), '-c:a', 'pcm_s16le', '-ar', '44100', soundWav],
      { cwd: project.dir, timeoutMs: 60_000 },
    );
    const sounds = path.join(project.dir, 'fixtures');
    await fs.mkdir(sounds);
    for (const name of GENERATED) await fs.copyFile(fixture(name), path.join(sounds, `${name}.wav`));
  }, 1_200_000);

  afterAll(async () => {
    await project?.dispose();
  });

  /**
   * The module entry points a user imports: not the manifest itself, and not `./testing`, the
   * repository's test tooling, which `files` leaves out of the tarball.
   */
  const publicEntries = () =>
    Object.keys(project.package('@earshot/core').manifest.exports).filter(
      (e) => e !== './testing' && e !== './package.json',
    );

  it('ships the built JavaScript and declarations, not the sources, tests or test tooling', () => {
    for (const name of ['@earshot/common', '@earshot/core']) {
      const entries = project.package(name).entries;
      expect(entries, name).toContain('dist/index.js');
      expect(entries, name).toContain('dist/index.d.ts');
      expect(entries, name).toContain('README.md');
      expect(entries, name).toContain('LICENSE');
      const stray = entries.filter((e) => /^src\/|\.test\.|^dist\/testing\/|tsbuildinfo/.test(e));
      expect(stray, name).toEqual([]);
    }
  });

  it('declares every package its shipped JavaScript imports, lazily imported ones included', () => {
    for (const name of ['@earshot/common', '@earshot/core']) {
      expect(undeclaredImports(project.package(name)), name).toEqual([]);
    }
  });

  it('every entry point loads in plain Node (no TypeScript loader)', async () => {
    const entries = publicEntries();
    expect(entries).toContain('.');
    const specifiers = entries.map((e) => `@earshot/core${e.slice(1)}`);
    const script = `for (const s of ${JSON.stringify(specifiers)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
    const result = await project.node(['--input-type=module', '-e', script], { timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('a plain JavaScript script analyzes, renders previews and images, and queries an index', async () => {
    await fs.copyFile(new URL('analyze.mjs', CONSUMER_FILES), path.join(project.dir, 'analyze.mjs'));
    const out = path.join(project.dir, 'out');
    const result = await project.node(['analyze.mjs', soundWav, path.join(project.dir, 'fixtures'), out], {
      timeoutMs: 600_000,
    });
    expect(result.code, result.stderr).toBe(0);
    // Nothing but the script's own JSON on stdout.
    const report = JSON.parse(result.stdout);

    expect(report.probe).toMatchObject({ type: 'wav', samplerate: 44100, channels: 2 });
    expect(report.probe.duration).toBeCloseTo(6.857, 2);
    expect(Object.keys(report.previews).sort()).toEqual([
      'preview-hq-mp3',
      'preview-hq-ogg',
      'preview-lq-mp3',
      'preview-lq-ogg',
    ]);
    for (const [key, preview] of Object.entries<any>(report.previews)) {
      expect(preview.type, key).toBe(key.endsWith('mp3') ? 'mp3' : 'ogg');
      expect(preview.duration, key).toBeCloseTo(report.probe.duration, 0);
      expect(preview.bytes, key).toBeGreaterThan(10_000);
    }
    expect(Object.keys(report.images).sort()).toEqual([
      'spectral_l',
      'spectral_m',
      'waveform_l',
      'waveform_m',
    ]);
    for (const [key, image] of Object.entries<any>(report.images)) {
      // PNG waveforms, JPEG spectrograms.
      expect(image.magic, key).toMatch(key.startsWith('waveform') ? /^89504e47/ : /^ffd8ff/);
      expect(image.bytes, key).toBeGreaterThan(1_000);
    }
    expect(report.peaks.length).toBeGreaterThan(100);
    expect(report.peaks.data).toBeGreaterThan(200);
    expect(report.analysisFiles.length).toBeGreaterThanOrEqual(2);

    // Descriptors within the tolerances of the core's accuracy tests: the manifest's ground truth
    // for the generated sounds, native Essentia's analysis for the recording.
    const truth = (name: string) => loadManifest().fixtures.find((f) => f.name === name)!.truth;
    const d = report.descriptors;
    expect(Math.abs(d['drums-128bpm'].bpm - (truth('drums-128bpm').bpm as number))).toBeLessThanOrEqual(1);
    expect(d['sine-a4'].note_midi).toBe(truth('sine-a4').midi);
    expect(d['sine-a4'].note_name).toBe(truth('sine-a4').noteName);
    expect(d['cadence-c-major'].tonality).toBe(truth('cadence-c-major').tonality);
    for (const name of ['drums-128bpm', 'sine-a4', 'cadence-c-major', 'noise-pink']) {
      expect(Math.abs(d[name].loudness - (truth(name).loudnessLufs as number)), name).toBeLessThanOrEqual(
        0.5,
      );
    }
    const essentia = JSON.parse(
      await fs.readFile(
        path.join(REPO_ROOT, 'fixtures', 'reference', 'essentia-native', `${RECORDING}.json`),
        'utf8',
      ),
    );
    expect(Math.abs(d.recording.loudness - essentia.lowlevel.loudness_ebu128.integrated)).toBeLessThanOrEqual(
      0.5,
    );
    expect(Math.abs(d.recording.bpm - essentia.rhythm.bpm) / essentia.rhythm.bpm).toBeLessThan(0.05);

    // The index: each sound finds itself first, identical direction; saving and loading keeps it.
    expect(report.index.size).toBe(5);
    expect(report.index.loadedSize).toBe(5);
    expect(report.index.byVector[0].id).toBe(1);
    expect(report.index.byVector[0].score).toBeCloseTo(1, 5);
    expect(report.index.byVector.map((n: any) => n.id).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(report.index.bySound.map((n: any) => n.id)).not.toContain(3);
    expect(report.index.bySound.length).toBe(4);
    expect(report.index.afterLoad).toEqual(report.index.byVector);

    expect(report.refused).toEqual({
      instanceOfMediaError: true,
      name: 'MediaError',
      code: expect.any(String),
    });
    // A library is silent unless given a logger: nothing on stderr either.
    expect(result.stderr).toBe('');
  });

  it('a strict TypeScript project type-checks against the declarations (skipLibCheck off)', async () => {
    const ts = path.join(project.dir, 'ts');
    await fs.mkdir(ts);
    for (const file of ['tsconfig.json', 'api-types.ts']) {
      await fs.copyFile(new URL(file, CONSUMER_FILES), path.join(ts, file));
    }
    // Every entry point's declarations, the subpath ones included.
    const entries = publicEntries();
    await fs.writeFile(
      path.join(ts, 'entries.ts'),
      entries.map((e, i) => `export * as entry${i} from '@earshot/core${e.slice(1)}';\n`).join(''),
    );
    const result = await project.node([TSC, '-p', ts], { timeoutMs: 300_000 });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.code).toBe(0);
  });

  it("every JavaScript example of the package's README runs on its own", async () => {
    const readme = await fs.readFile(
      path.join(project.dir, 'node_modules', '@earshot', 'core', 'README.md'),
      'utf8',
    );
    const blocks = javascriptBlocks(readme);
    expect(blocks.length, 'the README has no ```js example').toBeGreaterThan(0);
    for (const [i, block] of blocks.entries()) {
      // Each example in a folder of its own holding only sound.wav: none relies on another's files.
      const dir = path.join(project.dir, `readme-${i + 1}`);
      await fs.mkdir(dir);
      await fs.copyFile(soundWav, path.join(dir, 'sound.wav'));
      await fs.writeFile(path.join(dir, 'example.mjs'), block);
      const result = await project.node(['example.mjs'], { cwd: dir, timeoutMs: 300_000 });
      expect(result.code, `README example ${i + 1}:\n${block}\n${result.stderr}`).toBe(0);
    }
  });
});
