/**
 * `Content-Disposition` for a download under the name it was uploaded as: an ASCII fallback for
 * old clients and the exact name in RFC 6266's `filename*`.
 */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
