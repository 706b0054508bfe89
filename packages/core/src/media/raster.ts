import sharp from 'sharp';

/** The sharp adapter: raw RGB pixels in, encoded image bytes out. */
export function encodePng(rgb: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(rgb, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6, palette: false })
    .toBuffer();
}

/** JPEG quality 80, as the established sound site uses for its spectrograms. */
export function encodeJpeg(rgb: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(rgb, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80, chromaSubsampling: '4:4:4' })
    .toBuffer();
}
