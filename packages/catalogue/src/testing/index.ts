// Test helpers of @earshot/catalogue, imported as `@earshot/catalogue/testing`; never re-exported from
// the production index.ts. `writer-process.ts` is a child-process script started by path, not exported.
export {
  createTestDatabase,
  freshDataDir,
  openTestCatalogue,
  type TestBackend,
  type TestCatalogue,
  testBackends,
} from './catalogue.ts';
export { useRepositoryCatalogue } from './repository-catalogue.ts';
export { useSearchCatalogue } from './search-catalogue.ts';
export { SEED_NOW, seedSearchCatalogue, VISIBLE_IDS } from './search-seed.ts';
export {
  insertSeedComment,
  insertSeedDescriptors,
  insertSeedPack,
  insertSeedSound,
  insertSeedUser,
  insertSeedVector,
  updateSeedSound,
} from './seed-rows.ts';
export { soundRowFixture } from './sound-row.ts';
export { type ForcedProcessingState, setModerationState, setProcessingState } from './sound-state.ts';
export {
  loadSyntheticCatalogue,
  type SyntheticOptions,
  syntheticVocabulary,
  zipf,
} from './synthetic-catalogue.ts';
