export * from './config.ts';
export * from './errors.ts';
export * from './logger.ts';
export * from './notes.ts';
export * from './redact.ts';
export * from './services.ts';
export * from './ts-worker.ts';
