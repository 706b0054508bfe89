import fs from 'node:fs/promises';
import path from 'node:path';
import type { Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import { type DecodeSource, decodeMono } from '../media/decode.ts';
import { probeFileHeader } from '../media/header-probe.ts';
import type { AnalysisContext, AnalysisHook } from '../media/pipeline.ts';
import { checkProbedLength, probeFile } from '../media/probe.ts';
import { STORED_FILES } from '../media/stored-files.ts';
import { analyzeSignal, type DescriptorAnalysis } from './analyze.ts';
import { fileLoudness } from './file-loudness.ts';
import { writeFramesFile } from './frames-file.ts';
import type { AnalyzeOptions } from './types.ts';

/** Names of the files the analysis hook writes next to the previews. */
export const ANALYSIS_FILES = {
  descriptors: STORED_FILES.analysis_descriptors.file,
  stats: STORED_FILES.analysis_stats.file,
  frames: STORED_FILES.analysis_frames.file,
} as const;

export interface AnalyzeFileOptions extends Omit<AnalyzeOptions, 'loudness'> {
  /** The ffmpeg/ffprobe that probe and decode the file (default: `defaultFfmpeg()`). */
  ffmpeg?: Ffmpeg;
}

/** Decodes a file (mono, 44.1 kHz) and analyses it; loudness is measured on all the file's channels. */
export async function analyzeFile(
  file: string,
  options: AnalyzeFileOptions = {},
): Promise<DescriptorAnalysis> {
  const { ffmpeg, ...analyzeOptions } = options;
  const probe = await decodeSource(file, ffmpeg);
  const [signal, loudness] = await Promise.all([
    decodeMono(file, { probe, ffmpeg }),
    fileLoudness(file, probe, { ffmpeg }),
  ]);
  return analyzeSignal(signal.samples, signal.sampleRate, { ...analyzeOptions, loudness });
}

/**
 * What the decode and the loudness need of the file: its streams and duration, not its digest. A
 * plain PCM WAV/AIFF states them in its header, read in-process (the reader the upload path uses,
 * with probeFile's length check); other files are asked of ffprobe, whose start costs about as
 * much as decoding a short sound.
 */
async function decodeSource(file: string, ffmpeg: Ffmpeg | undefined): Promise<DecodeSource> {
  const header = await probeFileHeader(file, path.basename(file));
  if (header && (header.type === 'wav' || header.type === 'aif' || header.type === 'aiff')) {
    await checkProbedLength(file, header);
    return { ...header, streamIndex: 0 };
  }
  return probeFile(file, { ffmpeg, md5: false });
}

/** Writes the three analysis files into `dir`; returns their names relative to it. */
export async function writeAnalysisFiles(result: DescriptorAnalysis, dir: string): Promise<string[]> {
  const files: string[] = [ANALYSIS_FILES.descriptors, ANALYSIS_FILES.stats];
  await fs.writeFile(path.join(dir, ANALYSIS_FILES.descriptors), JSON.stringify(result.variantB));
  await fs.writeFile(path.join(dir, ANALYSIS_FILES.stats), JSON.stringify(result.variantA));
  if (result.frames) {
    await writeFramesFile(result.frames, path.join(dir, ANALYSIS_FILES.frames));
    files.push(ANALYSIS_FILES.frames);
  }
  return files;
}

/**
 * The hook for the media pipeline (`processFile(input, outDir, { analyze: analysisHook })`): analyses the
 * already-decoded signal, measures loudness on the original channels, writes the analysis files, and
 * returns the two variants so callers can store them without reading the files back.
 */
export const analysisHook: AnalysisHook = async (signal, ctx: AnalysisContext) => {
  const loudness = await fileLoudness(ctx.input, ctx.probe, { ffmpeg: ctx.ffmpeg });
  const result = await analyzeSignal(signal.samples, signal.sampleRate, { frames: true, loudness });
  const files = await writeAnalysisFiles(result, ctx.outDir);
  return { files, variantB: result.variantB, variantA: result.variantA, timings: result.timings };
};
