/**
 * A JSON value as the pieces of its pretty-printed text (the same text as
 * `JSON.stringify(value, null, 2)`), each marked with what it is, and with the address to link to
 * where a piece is one. The template writes each piece through the engine's escaping, so no HTML
 * is ever built from the values here.
 */
export interface JsonToken {
  text: string;
  kind?: 'key' | 'string' | 'number' | 'literal';
  href?: string;
}

export interface TokenOptions {
  /** The address of an item of a `results` list, by its `id` (a sound list's sounds, say). */
  itemLink?: (id: number) => string;
}

/** http(s) addresses only: nothing a browser would run (`javascript:`), no path templates (`{id}`). */
const LINKABLE = /^https?:\/\/[^\s"'<>{}\\^`|]+$/i;

export function jsonTokens(value: unknown, options: TokenOptions = {}): JsonToken[] {
  const tokens: JsonToken[] = [];
  const plain = (text: string) => tokens.push({ text });
  // Through JSON first: toJSON, dropped undefined values, exactly what a JSON client sees.
  const json = JSON.stringify(value);
  const write = (v: unknown, indent: string, isResultItem: boolean, key?: string): void => {
    if (v === null || typeof v === 'boolean') {
      tokens.push({ text: String(v), kind: 'literal' });
    } else if (typeof v === 'number') {
      const href = key === 'id' && isResultItem && options.itemLink ? options.itemLink(v) : undefined;
      tokens.push({ text: JSON.stringify(v), kind: 'number', ...(href ? { href } : {}) });
    } else if (typeof v === 'string') {
      tokens.push({ text: JSON.stringify(v), kind: 'string', ...(isLink(v) ? { href: v } : {}) });
    } else if (Array.isArray(v)) {
      if (v.length === 0) return void plain('[]');
      const inner = `${indent}  `;
      plain('[\n');
      v.forEach((item, i) => {
        plain(inner);
        write(item, inner, key === 'results' && item !== null && typeof item === 'object');
        plain(i < v.length - 1 ? ',\n' : '\n');
      });
      plain(`${indent}]`);
    } else {
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) return void plain('{}');
      const inner = `${indent}  `;
      plain('{\n');
      entries.forEach(([k, item], i) => {
        plain(inner);
        tokens.push({ text: JSON.stringify(k), kind: 'key' });
        plain(': ');
        // Only the item's own `id`: objects nested in it are something else.
        write(item, inner, isResultItem && (item === null || typeof item !== 'object'), k);
        plain(i < entries.length - 1 ? ',\n' : '\n');
      });
      plain(`${indent}}`);
    }
  };
  if (json === undefined) plain('null');
  else write(JSON.parse(json), '', false);
  return tokens;
}

function isLink(text: string): boolean {
  if (!LINKABLE.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}
