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

/**
 * Characters XML 1.0 cannot hold at all, not even as references: C0 controls other than tab, line
 * feed and carriage return, lone surrogates, U+FFFE and U+FFFF. A description may contain them
 * (they are valid JSON); they become U+FFFD so the document stays well-formed.
 */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escapeText(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
