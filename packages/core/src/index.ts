// Media: probe, decode, previews, images, peaks (issue 3).

// Descriptors: frame features, statistics, variant A/B, frames file (issue 4).
export * from './descriptors/index.ts';
export * from './media/index.ts';
// Similarity: spaces, HNSW index, descriptor-target search (issue 5).
export * from './similarity/index.ts';
