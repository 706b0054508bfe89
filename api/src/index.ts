export * from './app.ts';
export * from './build-deps.ts';
export { filterSetsFromCatalogue } from './caches/filter-sets.ts';
export * from './deps.ts';
export * from './server.ts';
