import { ALL_DESCRIPTOR_COLUMNS, type DescriptorValues } from '@earshot/catalogue';
import {
  ANALYSIS_FILES,
  ANALYSIS_SAMPLE_RATE,
  analysisHook,
  analyzeFile,
  type ProbeResult,
  writeAnalysisFiles,
} from '@earshot/core';
import type { StoredAnalysis } from './catalogue-store.ts';
import type { SoundAnalyzer } from './core-tools.ts';
import { readSignal } from './hand-off.ts';
import type { StageToolsOptions } from './tools.ts';

/**
 * The descriptors of @earshot/core: analyse (both variants and the frames file), write the files
 * into the stage's folder, and hand the catalogue the tree, the flat record and the filterable
 * columns (the variant-B values under the columns' names). The signal the media stage decoded is
 * used when it was left for us; otherwise the file is decoded here.
 */
export const coreAnalyzer: SoundAnalyzer = async (file, outDir, options) => {
  const { variantA, variantB, files } = await analyse(file, outDir, options);
  const flat = variantB as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const column of ALL_DESCRIPTOR_COLUMNS) {
    const v = flat[column];
    if (v !== undefined && v !== null && (typeof v !== 'number' || Number.isFinite(v))) values[column] = v;
  }
  const analysis: StoredAnalysis = {
    tree: variantA as Record<string, unknown>,
    flat,
    values: values as DescriptorValues,
    analyzer: 'earshot-core',
  };
  return {
    analysisFile: ANALYSIS_FILES.stats,
    framesFile: files.includes(ANALYSIS_FILES.frames) ? ANALYSIS_FILES.frames : undefined,
    extraFiles: { analysis_descriptors: ANALYSIS_FILES.descriptors },
    analysis,
  };
};

async function analyse(
  file: string,
  outDir: string,
  options: StageToolsOptions,
): Promise<{ variantA: unknown; variantB: unknown; files: string[] }> {
  const probe = options.probe as ProbeResult | undefined;
  const samples =
    probe && options.signalFile
      ? await readSignal(options.signalFile, probe, ANALYSIS_SAMPLE_RATE)
      : undefined;
  if (probe && samples) {
    const signal = { samples, sampleRate: ANALYSIS_SAMPLE_RATE };
    return analysisHook(signal, { probe, outDir, input: file }) as Promise<{
      variantA: unknown;
      variantB: unknown;
      files: string[];
    }>;
  }
  const result = await analyzeFile(file, { frames: true });
  return { ...result, files: await writeAnalysisFiles(result, outDir) };
}
