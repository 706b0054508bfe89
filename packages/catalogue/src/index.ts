export type { OpenCatalogueOptions } from './connection/catalogue-options.ts';
export {
  CATALOGUE_CHANGED_CHANNEL,
  CatalogueChangeFeed,
  type ChangeVersion,
  NO_CHANGE_FEED,
} from './connection/change-feed.ts';
export { CatalogueVersionPoll } from './connection/change-version-poll.ts';
export {
  CatalogueContentionError,
  isCatalogueContention,
  type RetryOnContentionOptions,
  retryOnContention,
} from './connection/contention.ts';
export * from './connection/data-folder-lock.ts';
export {
  type Catalogue,
  CatalogueBusyError,
  type CatalogueKind,
  openCatalogue,
} from './connection/open-catalogue.ts';
export { pingCatalogue } from './connection/ping.ts';
export { sharedRoundTrips } from './connection/shared-round-trips.ts';
export { isCatalogueUnavailable } from './connection/unavailable.ts';
export {
  type RetryWhileUnavailableOptions,
  retryWhileUnavailable,
} from './connection/while-unavailable.ts';
export {
  FolderMigrationProvider,
  type MigrateOutcome,
  MigrationError,
  migrate,
  migrateDatabase,
} from './migrate.ts';
export * from './repositories/index.ts';
export * from './schema/database.ts';
export * from './schema/descriptors.ts';
export * from './schema/gen-ai-preference.ts';
export * from './schema/licenses.ts';
export * from './schema/taxonomy.ts';
export * from './search/index.ts';
