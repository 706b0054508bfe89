import fs from 'node:fs/promises';
import path from 'node:path';

/** Description fields a sidecar may give for a file. */
export interface SidecarMetadata {
  name?: string;
  tags?: string[];
  description?: string;
  license?: string;
  category?: string;
  subcategory?: string;
  /** A Broad Sound Taxonomy subcategory code (`fx-a`), as the upload takes it. */
  bst_category?: string;
  /** `lat,lon,zoom`, as the upload takes it. */
  geotag?: string;
}

const CSV_NAMES = ['metadata.csv', 'sounds.csv'];

/**
 * Reads what the uploader wrote about a file: `<file>.json` or `<stem>.json` beside it, else a row of
 * `metadata.csv` / `sounds.csv` in its folder (column `filename`, plus name, tags, description,
 * license, category, subcategory, bst_category, geotag; tags separated by spaces or commas). The
 * values are checked by the upload's own field rules when the sound is created.
 */
export async function readSidecar(
  file: string,
  csvCache = new Map<string, Map<string, SidecarMetadata>>(),
): Promise<SidecarMetadata> {
  const dir = path.dirname(file);
  const stem = path.parse(file).name;
  for (const candidate of [`${file}.json`, path.join(dir, `${stem}.json`)]) {
    const text = await fs.readFile(candidate, 'utf8').catch(() => undefined);
    if (text !== undefined) return fromRecord(JSON.parse(text) as Record<string, unknown>);
  }
  let rows = csvCache.get(dir);
  if (!rows) {
    rows = await readCsvRows(dir);
    csvCache.set(dir, rows);
  }
  return rows.get(path.basename(file)) ?? {};
}

async function readCsvRows(dir: string): Promise<Map<string, SidecarMetadata>> {
  const rows = new Map<string, SidecarMetadata>();
  for (const name of CSV_NAMES) {
    const text = await fs.readFile(path.join(dir, name), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const [header, ...lines] = parseCsv(text);
    if (!header) continue;
    const columns = header.map((h) => h.trim().toLowerCase());
    const fileColumn = columns.indexOf('filename');
    if (fileColumn < 0) continue;
    for (const cells of lines) {
      const record: Record<string, string> = {};
      columns.forEach((c, i) => {
        record[c] = cells[i] ?? '';
      });
      rows.set(cells[fileColumn], fromRecord(record));
    }
  }
  return rows;
}

function fromRecord(r: Record<string, unknown>): SidecarMetadata {
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const tags = Array.isArray(r.tags)
    ? r.tags.map(String)
    : typeof r.tags === 'string'
      ? r.tags.split(/[\s,]+/).filter(Boolean)
      : undefined;
  return {
    name: str(r.name),
    tags,
    description: str(r.description),
    license: str(r.license) ?? str(r.licence),
    category: str(r.category),
    subcategory: str(r.subcategory),
    bst_category: str(r.bst_category),
    geotag: str(r.geotag),
  };
}

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  return rows;
}
