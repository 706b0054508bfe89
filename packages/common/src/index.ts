export * from './config.ts';
export * from './errors.ts';
export * from './logger.ts';
export * from './module-worker.ts';
export * from './notes.ts';
export * from './redact.ts';
export * from './services.ts';
