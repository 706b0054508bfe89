import { DateMathError, parseDateExpression } from './date-math.ts';
import type { FieldRef, FilterNode, FilterValue, RangeBound } from './filter-ast.ts';

/** A value as written: where it starts, its text, and whether it was double-quoted. */
export interface RawValue {
  readonly text: string;
  readonly quoted: boolean;
  readonly position: number;
}

/** Raised by the value readers; the parser turns it into a SearchSyntaxError of its parameter. */
export class ValueError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function fieldLabel(field: FieldRef): string {
  return field.kind === 'field' ? field.def.name : field.name;
}

export function readNumber(raw: RawValue, field: FieldRef, integer = false): number {
  const n = NUMBER.test(raw.text) ? Number(raw.text) : Number.NaN;
  if (!Number.isFinite(n)) {
    throw new ValueError(`"${raw.text}" is not a number (field "${fieldLabel(field)}")`, raw.position);
  }
  if (integer && !Number.isInteger(n)) {
    throw new ValueError(`"${raw.text}" is not an integer (field "${fieldLabel(field)}")`, raw.position);
  }
  return n;
}

export function readBool(raw: RawValue, field: FieldRef): boolean {
  const t = raw.text.toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  throw new ValueError(
    `"${raw.text}" is not a boolean (field "${fieldLabel(field)}" takes true, false, 1 or 0)`,
    raw.position,
  );
}

export function readDate(raw: RawValue, now: Date) {
  try {
    return parseDateExpression(raw.text, now);
  } catch (e) {
    if (e instanceof DateMathError)
      throw new ValueError(e.message, raw.position + (raw.quoted ? 1 : 0) + e.offset);
    throw e;
  }
}

/** `"<packid>_<packname>"` (what grouped results link to) or a bare pack id. */
export function readPackGrouping(raw: RawValue): FilterValue {
  const m = /^(\d{1,15})(?:_|$)/.exec(raw.text);
  if (!m)
    throw new ValueError(`"${raw.text}" is not a pack grouping ("<pack id>_<pack name>")`, raw.position);
  return { type: 'pack', packId: Number(m[1]) };
}

function checkLatLon(lat: number, lon: number, position: number): void {
  if (lat < -90 || lat > 90) throw new ValueError(`latitude ${lat} is outside [-90, 90]`, position);
  if (lon < -180 || lon > 180) throw new ValueError(`longitude ${lon} is outside [-180, 180]`, position);
}

const SHAPE =
  /^\s*(Intersects|IsWithin|IsDisjointTo)\s*\(([^)]*)\)\s*(?:(?:distErr|distErrPct)\s*=\s*[\d.]+\s*)*$/i;

/** `geotag:"Intersects(minLon minLat maxLon maxLat)"` and its `IsDisjointTo` / `IsWithin` siblings. */
export function readGeoShape(raw: RawValue): FilterNode {
  const m = SHAPE.exec(raw.text);
  if (!m) {
    throw new ValueError(
      `"${raw.text}" is not a geotag shape; use "Intersects(minLon minLat maxLon maxLat)"`,
      raw.position,
    );
  }
  const parts = m[2].trim().split(/[\s,]+/);
  const nums = parts.map(Number);
  if (parts.length !== 4 || nums.some((n, i) => !NUMBER.test(parts[i]) || !Number.isFinite(n))) {
    throw new ValueError(`a geotag rectangle takes four numbers: minLon minLat maxLon maxLat`, raw.position);
  }
  const [minLon, minLat, maxLon, maxLat] = nums;
  checkLatLon(minLat, minLon, raw.position);
  checkLatLon(maxLat, maxLon, raw.position);
  if (minLat > maxLat)
    throw new ValueError("the rectangle's minimum latitude exceeds its maximum", raw.position);
  const box: FilterNode = { kind: 'geo-box', minLat, minLon, maxLat, maxLon };
  if (m[1].toLowerCase() !== 'isdisjointto') return box;
  // Only geotagged sounds can be outside a rectangle, as upstream's spatial field sees it.
  return { kind: 'and', children: [geotagged, { kind: 'not', child: box }] };
}

const geotagged: FilterNode = {
  kind: 'exists',
  field: {
    kind: 'field',
    def: { name: 'geotag', type: 'geo', source: 'sound', column: 'geotag' },
  },
};

/** A range bound of `geotag:["lat,lon" TO "lat,lon"]` (the form upstream rewrites rectangles to). */
export function readLatLon(raw: RawValue): [number, number] {
  const parts = raw.text.split(',');
  const nums = parts.map((p) => p.trim());
  if (parts.length !== 2 || !nums.every((p) => NUMBER.test(p))) {
    throw new ValueError(`"${raw.text}" is not a "lat,lon" point`, raw.position);
  }
  const [lat, lon] = nums.map(Number);
  checkLatLon(lat, lon, raw.position);
  return [lat, lon];
}

/** `{!geofilt sfield=geotag pt=LAT,LON d=KM}` (distance) or `{!bbox …}` (its bounding box). */
export function readLocalParams(body: string, position: number): FilterNode {
  const m = /^!(geofilt|bbox)\b(.*)$/s.exec(body);
  if (!m) throw new ValueError('expected {!geofilt sfield=geotag pt=LAT,LON d=KM}', position);
  const params = new Map<string, string>();
  for (const piece of m[2].trim().split(/\s+/).filter(Boolean)) {
    const eq = piece.indexOf('=');
    if (eq <= 0) throw new ValueError(`"${piece}" is not a key=value parameter of {!${m[1]}}`, position);
    params.set(piece.slice(0, eq), piece.slice(eq + 1));
  }
  for (const key of params.keys()) {
    if (!['sfield', 'pt', 'd', 'score', 'filter', 'cache'].includes(key)) {
      throw new ValueError(`unknown parameter "${key}" in {!${m[1]}}`, position);
    }
  }
  if ((params.get('sfield') ?? 'geotag') !== 'geotag') {
    throw new ValueError(`{!${m[1]}} only works on sfield=geotag`, position);
  }
  const pt = params.get('pt');
  const d = params.get('d');
  if (pt === undefined) throw new ValueError(`{!${m[1]}} needs pt=LAT,LON`, position);
  if (d === undefined) throw new ValueError(`{!${m[1]}} needs d=<distance in km>`, position);
  const [lat, lon] = readLatLon({ text: pt, quoted: false, position });
  const km = NUMBER.test(d) ? Number(d) : Number.NaN;
  if (!Number.isFinite(km) || km < 0) throw new ValueError(`d=${d} is not a distance in km`, position);
  if (m[1] === 'geofilt') return { kind: 'geo-distance', lat, lon, km };
  return boundingBox(lat, lon, km);
}

const EARTH_RADIUS_KM = 6371.0087714;

/** The lat/lon rectangle that contains every point within `km` of (lat, lon). */
export function boundingBox(lat: number, lon: number, km: number): FilterNode & { kind: 'geo-box' } {
  const dLat = (km / EARTH_RADIUS_KM) * (180 / Math.PI);
  const minLat = Math.max(-90, lat - dLat);
  const maxLat = Math.min(90, lat + dLat);
  const cosLat = Math.min(Math.cos((minLat * Math.PI) / 180), Math.cos((maxLat * Math.PI) / 180));
  const dLon = cosLat <= 1e-9 ? 360 : (km / (EARTH_RADIUS_KM * cosLat)) * (180 / Math.PI);
  if (dLon >= 180 || maxLat >= 90 || minLat <= -90) {
    return { kind: 'geo-box', minLat, maxLat, minLon: -180, maxLon: 180 };
  }
  // Across the antimeridian the box wraps: minLon > maxLon, which the compiler reads as two spans.
  const wrap = (x: number) => (x < -180 ? x + 360 : x > 180 ? x - 360 : x);
  return { kind: 'geo-box', minLat, maxLat, minLon: wrap(lon - dLon), maxLon: wrap(lon + dLon) };
}

export type { RangeBound };
export { EARTH_RADIUS_KM };
