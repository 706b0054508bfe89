/**
 * Encodes a JSON value as XML the way the original service's renderer does: a `<root>` element,
 * one child per key, `<list-item>` for array members, empty elements for null.
 */
export function toXml(value: unknown): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<root>${encode(value)}</root>`;
}

function encode(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((item) => `<list-item>${encode(item)}</list-item>`).join('');
  if (typeof value === 'object') {
    let out = '';
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const tag = elementName(key);
      out += `<${tag}>${encode(child)}</${tag}>`;
    }
    return out;
  }
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return escapeText(String(value));
}

/** Keys such as `is explicit` or `preview-hq-mp3` must still make well-formed element names. */
function elementName(key: string): string {
  const cleaned = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
