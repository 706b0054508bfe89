// Media: probe, decode, previews, images, peaks (issue 3).
export * from './media/index.ts';
