// The whole core. Each area is also its own entry point, which loads only what it needs:
// `@earshot/core/media` (probe, decode, previews, images, peaks), `@earshot/core/descriptors`
// (frame features, statistics, variant A/B, frames file) and `@earshot/core/similarity` (spaces,
// HNSW index, descriptor-target search). All three share the ffmpeg runner and the error classes.
export * from './descriptors/index.ts';
export * from './media/index.ts';
export * from './similarity/index.ts';
