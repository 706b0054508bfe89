export { type MetricSources, Metrics } from './adapters/metrics.ts';
export * from './app.ts';
export * from './build-deps.ts';
export * from './deps.ts';
export * from './server.ts';
