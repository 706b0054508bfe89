// Runs with plain `node` in a project that installed @earshot/core from its tarball (no TypeScript
// loader, no workspace around it). It uses the library as a user would — the media stage of a real
// recording, descriptors of sounds with a known ground truth, a similarity index saved and loaded,
// a typed error — and prints what it found as one JSON document on stdout for the test to judge.
// Usage: node analyze.mjs <recording> <folder of generated fixtures> <output folder>
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  analysisHook,
  analyzeFile,
  DEFAULT_SIMILARITY_SPACE,
  MediaError,
  probeFile,
  processFile,
  SimilarityIndex,
  similarityVectorFromAnalysis,
} from '@earshot/core';

const [recording, fixtureDir, outDir] = process.argv.slice(2);
/** Generated sounds whose manifest gives the truth the test compares with. */
const GENERATED = ['drums-128bpm', 'sine-a4', 'cadence-c-major', 'noise-pink'];
const DESCRIPTORS = ['bpm', 'pitch', 'note_midi', 'note_name', 'tonality', 'loudness', 'onset_count'];

const pick = (variantB) => Object.fromEntries(DESCRIPTORS.map((name) => [name, variantB[name]]));
const head = async (file, bytes) => {
  const handle = await fs.open(file);
  try {
    const { buffer } = await handle.read(Buffer.alloc(bytes), 0, bytes, 0);
    return buffer;
  } finally {
    await handle.close();
  }
};

// The media stage of the recording: the four previews, the images, the peaks and the analysis files.
const media = path.join(outDir, 'media');
const processed = await processFile(recording, media, { analyze: analysisHook });
const previews = {};
for (const [key, file] of Object.entries(processed.files.previews)) {
  const probe = await probeFile(file);
  previews[key] = { type: probe.type, duration: probe.duration, bytes: probe.filesize };
}
const images = {};
for (const [key, file] of Object.entries(processed.files.images)) {
  images[key] = { bytes: (await fs.stat(file)).size, magic: (await head(file, 4)).toString('hex') };
}
const peaks = JSON.parse(await fs.readFile(processed.files.peaks, 'utf8'));

// Descriptors, and the vectors of the similarity space, of the recording and the generated sounds.
const sounds = [
  { id: 1, name: 'recording', variantA: processed.analysis.variantA, variantB: processed.analysis.variantB },
];
for (const [i, name] of GENERATED.entries()) {
  const analysis = await analyzeFile(path.join(fixtureDir, `${name}.wav`));
  sounds.push({ id: i + 2, name, variantA: analysis.variantA, variantB: analysis.variantB });
}

// A small index: built, queried, saved, loaded and queried again.
const index = SimilarityIndex.create({ space: DEFAULT_SIMILARITY_SPACE });
const vectors = new Map();
for (const sound of sounds) {
  const vector = similarityVectorFromAnalysis(DEFAULT_SIMILARITY_SPACE, sound.variantA);
  vectors.set(sound.id, vector);
  index.upsert(sound.id, vector);
}
const byVector = index.nearestToVector(vectors.get(1), { k: sounds.length });
const bySound = index.nearestToSound(3, { k: sounds.length });
const snapshotDir = path.join(outDir, 'index');
await index.snapshot(snapshotDir);
const loaded = await SimilarityIndex.load(snapshotDir);
const afterLoad = loaded.nearestToVector(vectors.get(1), { k: sounds.length });

// A file that is no audio: the typed error of the package, recognisable with instanceof.
let refused;
try {
  await probeFile(path.join(fixtureDir, 'bad-random.wav'));
} catch (err) {
  refused = { instanceOfMediaError: err instanceof MediaError, name: err.name, code: err.code };
}

process.stdout.write(
  JSON.stringify({
    probe: {
      type: processed.probe.type,
      duration: processed.probe.duration,
      samplerate: processed.probe.samplerate,
      channels: processed.probe.channels,
    },
    previews,
    images,
    peaks: { keys: Object.keys(peaks), length: peaks.length, data: peaks.data?.length },
    analysisFiles: processed.files.analysis.map((file) => path.basename(file)),
    descriptors: Object.fromEntries(sounds.map((s) => [s.name, pick(s.variantB)])),
    dimension: vectors.get(1).length,
    index: { size: index.size, loadedSize: loaded.size, byVector, bySound, afterLoad },
    refused,
  }),
);
