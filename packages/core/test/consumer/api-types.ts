// Type-checked (never run) in a strict TypeScript project that installed @earshot/core from its
// tarball: the public API by name, its typed results and its error classes, from the declaration
// files alone. Each `@ts-expect-error` proves a type is precise: were it `any`, the line would
// compile and the unused directive would fail the check.
import {
  analyzeFile,
  DEFAULT_SIMILARITY_SPACE,
  type DescriptorAnalysis,
  type DescriptorTable,
  FfmpegProcessError,
  type ImageKey,
  InvalidAnalysisFileError,
  MediaError,
  type MediaErrorCode,
  type Neighbour,
  type PreviewKey,
  type ProbeResult,
  type ProcessResult,
  probeFile,
  processFile,
  SimilarityIndex,
  type SimilarityIndexOptions,
  similarityVectorFromAnalysis,
  type VariantB,
} from '@earshot/core';

export async function describe(file: string): Promise<{ bpm: number; tonality: string; note: string }> {
  const probe: ProbeResult = await probeFile(file);
  const seconds: number = probe.duration;
  const analysis: DescriptorAnalysis = await analyzeFile(file);
  const b: VariantB = analysis.variantB;
  // @ts-expect-error bpm is a number
  const wrong: string = b.bpm;
  void wrong;
  return { bpm: b.bpm * (seconds > 0 ? 1 : 0), tonality: b.tonality, note: b.note_name };
}

export async function render(file: string, outDir: string): Promise<string[]> {
  const result: ProcessResult = await processFile(file, outDir);
  const previews: Record<PreviewKey, string> = result.files.previews;
  const images: Record<ImageKey, string> = result.files.images;
  // @ts-expect-error there is no such preview
  void result.files.previews['preview-hq-flac'];
  return [...Object.values(previews), ...Object.values(images), result.files.peaks];
}

export function nearest(vectors: Map<number, Float32Array>, query: Float32Array): Neighbour[] {
  const options: SimilarityIndexOptions = { capacity: vectors.size };
  const index = SimilarityIndex.create(options);
  for (const [id, vector] of vectors) index.upsert(id, vector);
  const found = index.nearestToVector(query, { k: 3 });
  const first: { id: number; score: number } | undefined = found[0];
  void first;
  // @ts-expect-error k is a number
  index.nearestToVector(query, { k: 'three' });
  return found;
}

export function vectorOf(analysis: DescriptorAnalysis): Float32Array {
  return similarityVectorFromAnalysis(DEFAULT_SIMILARITY_SPACE, analysis.variantA);
}

export function explain(err: unknown): string {
  if (err instanceof MediaError) {
    const code: MediaErrorCode = err.code;
    const status: number = err.status;
    return `${code} (${status}): ${err.message}`;
  }
  if (err instanceof FfmpegProcessError) return `ffmpeg exited ${err.exitCode}: ${err.stderrTail}`;
  if (err instanceof InvalidAnalysisFileError) return err.message;
  return String(err);
}

export type Table = DescriptorTable;
