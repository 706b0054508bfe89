// Media: probe, decode, previews, images, peaks (issue 3).
export * from './media/index.ts';
// Similarity: spaces, HNSW index, descriptor-target search (issue 5).
export * from './similarity/index.ts';
