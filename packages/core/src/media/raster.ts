import type { Sharp, SharpOptions } from 'sharp';

type SharpFactory = (input: Uint8Array, options: SharpOptions) => Sharp;

// sharp (libvips, a native addon) is loaded when the first image is encoded, not when the core
// is imported: a user who only wants descriptors never pays for it.
let loading: Promise<SharpFactory> | undefined;
function loadSharp(): Promise<SharpFactory> {
  loading ??= import('sharp').then((mod) => mod.default as unknown as SharpFactory);
  return loading;
}

/** The sharp adapter: raw RGB pixels in, encoded image bytes out. */
export async function encodePng(rgb: Uint8Array, width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(rgb, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6, palette: false })
    .toBuffer();
}

/** JPEG quality 80, as the established sound site uses for its spectrograms. */
export async function encodeJpeg(rgb: Uint8Array, width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(rgb, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80, chromaSubsampling: '4:4:4' })
    .toBuffer();
}
