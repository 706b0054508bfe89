import { ALL_DESCRIPTOR_COLUMNS, type DescriptorValues } from '@earshot/catalogue';
import { ANALYSIS_FILES, analyzeFile, writeAnalysisFiles } from '@earshot/core';
import type { StoredAnalysis } from './catalogue-store.ts';
import type { SoundAnalyzer } from './core-tools.ts';

/**
 * The descriptors of @earshot/core: decode, analyse (both variants and the frames file), write the
 * files into the stage's folder, and hand the catalogue the tree, the flat record and the
 * filterable columns (the variant-B values under the columns' names).
 */
export const coreAnalyzer: SoundAnalyzer = async (file, outDir) => {
  const result = await analyzeFile(file, { frames: true });
  const files = await writeAnalysisFiles(result, outDir);
  const flat = result.variantB as unknown as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const column of ALL_DESCRIPTOR_COLUMNS) {
    const v = flat[column];
    if (v !== undefined && v !== null && (typeof v !== 'number' || Number.isFinite(v))) values[column] = v;
  }
  const analysis: StoredAnalysis = {
    tree: result.variantA as unknown as Record<string, unknown>,
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
