// Test helpers of @earshot/core, imported as `@earshot/core/testing`; never re-exported from the
// production index.ts.
export { makeTempDir, synth, synthChannels } from './audio.ts';
export { silenceFlac, understateFlacLength } from './bombs.ts';
export { expectContractTypes } from './descriptors.ts';
export * from './frame-stride.ts';
export {
  formatParityReport,
  PARITY_DESCRIPTORS,
  PARITY_TARGETS,
  type ParityReport,
  type ParityRow,
  parityReport,
  parityRow,
} from './parity-report.ts';
export { filterAgreement, spearman } from './parity-stats.ts';
export { columnMeans, referenceRecording } from './reference-recording.ts';
export { jitterAnalysis, referenceAnalyses, referenceNames, seededRandom } from './similarity.ts';
export { makeTwinSet, TWIN_BASES, TWIN_BASES_FIRST, type TwinBase, type TwinFiles } from './twin-set.ts';
export {
  type CategoricalRow,
  type Counterpart,
  counterpartValues,
  EVENT_TOLERANCE_S,
  eventsAgree,
  formatVariantBReport,
  VARIANT_B_COUNTERPARTS,
  VARIANT_B_WITHOUT_COUNTERPART,
  type VariantBReport,
  variantBReport,
} from './variant-b-report.ts';
export {
  formatWholeTreeReport,
  type LeafRow,
  leafFamily,
  leafRow,
  leafValue,
  numericLeaves,
  WHOLE_TREE_TARGETS,
  type WholeTreeReport,
  wholeTreeReport,
} from './whole-tree-report.ts';
