export { filterSetsFromCatalogue } from './adapters/filter-sets.ts';
export * from './app.ts';
export * from './build-deps.ts';
export * from './deps.ts';
export * from './server.ts';
