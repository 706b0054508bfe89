import { ALL_DESCRIPTOR_COLUMNS, type DescriptorValues, type StoredAnalysis } from '@earshot/catalogue';
import {
  ANALYSIS_FILES,
  ANALYSIS_SAMPLE_RATE,
  analyzeFile,
  analyzeSignal,
  CORE_ANALYZER,
  type DescriptorAnalysis,
  type Ffmpeg,
  fileLoudness,
  type StoredFileKind,
  writeAnalysisFiles,
} from '@earshot/core';
import type { SoundAnalyzer } from './core-tools.ts';
import { readSignal } from './hand-off.ts';
import type { StageToolsOptions } from './tools.ts';

/**
 * The descriptors of @earshot/core: analyze (both variants and the frames file), write the files
 * into the stage's folder, and hand the catalogue the tree, the flat record and the filterable
 * columns (the variant-B values under the columns' names). The signal the media stage decoded is
 * used when it was left for us; otherwise the file is decoded here.
 */
export const coreAnalyzer: SoundAnalyzer = async (file, outDir, options) => {
  const result = await analyze(file, options);
  const files = await writeAnalysisFiles(result, outDir);
  const flat = new Map<string, unknown>(Object.entries(result.variantB));
  const values: Record<string, unknown> = {};
  for (const column of ALL_DESCRIPTOR_COLUMNS) {
    const v = flat.get(column);
    if (v !== undefined && v !== null && (typeof v !== 'number' || Number.isFinite(v))) values[column] = v;
  }
  const analysis: StoredAnalysis = {
    analysisA: result.variantA,
    analysisB: result.variantB,
    values: values as DescriptorValues,
    analyzer: CORE_ANALYZER,
  };
  return {
    analysisFile: ANALYSIS_FILES.stats,
    framesFile: files.includes(ANALYSIS_FILES.frames) ? ANALYSIS_FILES.frames : undefined,
    extraFiles: { analysis_descriptors: ANALYSIS_FILES.descriptors } satisfies Partial<
      Record<StoredFileKind, string>
    >,
    analysis,
  };
};

/** What core's `analysisHook` does for the media pipeline, here on the signal at hand or the one the media stage left. */
async function analyze(
  file: string,
  options: StageToolsOptions & { ffmpeg?: Ffmpeg },
): Promise<DescriptorAnalysis> {
  const probe = options.probe;
  const samples =
    options.samples ??
    (probe && options.signalFile
      ? await readSignal(options.signalFile, probe, ANALYSIS_SAMPLE_RATE)
      : undefined);
  if (probe && samples) {
    const loudness = await fileLoudness(file, probe, { signal: options.signal, ffmpeg: options.ffmpeg });
    return analyzeSignal(samples, ANALYSIS_SAMPLE_RATE, { frames: true, loudness });
  }
  return analyzeFile(file, { frames: true, ffmpeg: options.ffmpeg });
}
