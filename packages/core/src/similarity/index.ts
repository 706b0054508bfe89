// Similarity engine (issue 5): spaces, HNSW index per space, descriptor-target search.
export * from '../common-exports.ts';
// Types of other areas that this entry point's functions take or return, so its users can name them.
export type { AnalyzeClipOptions, ClipAnalysis, ClipTimings } from '../descriptors/analyze-clip.ts';
export type { AnalysisExample, ExampleLayout } from '../descriptors/example-file.ts';
export type { ScalarStats, VectorStats } from '../descriptors/statistics.ts';
export type { TreeValue, VariantATree } from '../descriptors/types.ts';
export type { AnalysisTree } from './analysis-tree.ts';
export { readDescriptor } from './analysis-tree.ts';
export {
  type BulkVectors,
  buildSimilarityIndexInWorker,
  bulkUpsertInWorker,
  type WorkerBuildOptions,
} from './build-in-worker.ts';
export * from './classifier/index.ts';
export {
  canonicalDescriptorName,
  type DescriptorReference,
  isConsolidatedColumn,
  parseDescriptorReference,
  VARIABLE_LENGTH_DESCRIPTORS,
} from './descriptor-names.ts';
export {
  type ColumnPolicy,
  type ColumnStats,
  DescriptorTable,
  type DescriptorTableRow,
  defaultColumnPolicy,
} from './descriptor-table.ts';
export {
  DEFAULT_SOUND_TARGET_DESCRIPTORS,
  DescriptorRowSet,
  type DescriptorSearchOptions,
  type DescriptorSearchResult,
  type DescriptorTarget,
  parseDescriptorTarget,
  searchDescriptorTarget,
} from './descriptor-target.ts';
export * from './errors.ts';
export { exactNearest } from './exact-search.ts';
export {
  type AnalysisInput,
  clipAnalysisNeeds,
  exampleAnalysisNeeds,
  exampleTarget,
  exampleVector,
  similarToAnalysis,
  similarToAudio,
} from './example-query.ts';
export { DEFAULT_GRAPH_PARAMETERS, type GraphParameters } from './hnsw-graph.ts';
export {
  type NearestOptions,
  type Neighbour,
  SimilarityIndex,
  type SimilarityIndexOptions,
  type SoundFilter,
} from './similarity-index.ts';
export type { SnapshotMeta, SnapshotPosition } from './snapshot.ts';
export { FREESOUND_CLASSIC } from './spaces/freesound-classic.ts';
export {
  DEFAULT_SIMILARITY_SPACE,
  getSimilaritySpace,
  listSimilaritySpaces,
  normalizeSpaceVector,
  similarityVectorFromAnalysis,
} from './spaces/registry.ts';
export type { SimilaritySpace } from './spaces/space.ts';
export { TopK } from './top-k.ts';
export { normalizeVector, scoreFromCosine, type VectorInput } from './vector.ts';
