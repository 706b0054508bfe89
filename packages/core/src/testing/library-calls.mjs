// Calls every area of the BUILT core once (plain Node: no TypeScript loader, no source condition),
// in a process whose stdout and stderr package.test.ts reads: a library writes nothing there.
// Arguments: a WAV file and a scratch folder. Exits 0 when every call worked; says nothing.
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  analysisHook,
  analyzeFile,
  ClipAnalysisPool,
  clipAnalysisNeeds,
  EssentiaBeatTracker,
  Ffmpeg,
  probeFile,
  processFile,
  SimilarityIndex,
  similarityVectorFromAnalysis,
  similarToAudio,
} from '@earshot/core';

const [file, dir] = process.argv.slice(2);
const ffmpeg = new Ffmpeg({ spawnHelper: true });
const essentia = new EssentiaBeatTracker();

const probe = await probeFile(file, { ffmpeg });
const analysis = await analyzeFile(file, { frames: true, rhythm: 'essentia', essentia, ffmpeg });
const media = await processFile(file, path.join(dir, 'media'), { analyze: analysisHook });
const index = SimilarityIndex.create();
index.upsert(1, similarityVectorFromAnalysis(index.space.name, analysis.variantA));
await index.snapshot(path.join(dir, 'index'));
const loaded = await SimilarityIndex.load(path.join(dir, 'index'));
const { neighbours } = await similarToAudio(loaded, file);
const pool = new ClipAnalysisPool(1, { ffmpeg });
const clip = await pool.analyze(file, { needs: clipAnalysisNeeds() });
await pool.close();
await essentia.close();
ffmpeg.close();

const wrote = await fs.readdir(path.join(dir, 'media'));
const ok =
  probe.duration > 0 &&
  analysis.variantB.duration_effective > 0 &&
  media.files.analysis.length === 3 &&
  wrote.length >= 12 &&
  neighbours[0]?.id === 1 &&
  clip.lean;
process.exitCode = ok ? 0 : 3;
