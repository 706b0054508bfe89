import { type BodyLimitOverride, filesAllowance } from '../middleware/body-limit.ts';
import type { AnyRoute } from './route.ts';

/**
 * The body limits of the routes that take files, from their declarations (one source of truth):
 * every file at its largest, plus the default for the text fields beside them. A route may also
 * declare its own `bodyLimit`.
 */
export function bodyLimitOverrides(routes: readonly AnyRoute[]): BodyLimitOverride[] {
  const out: BodyLimitOverride[] = [];
  for (const route of routes) {
    const files = Object.entries(route.files ?? {});
    const path = pathPattern(route.path);
    if (route.bodyLimit !== undefined) {
      const { bytes, allowance } = route.bodyLimit;
      out.push({ method: route.method, path, bytes, allowance });
    } else if (files.length > 0) {
      out.push({
        method: route.method,
        path,
        ...filesAllowance(files.map(([name, f]) => [name, f.maxBytes])),
      });
    }
  }
  return out;
}

/** `/apiv2/sounds/{id}/edit/` → a pattern matching the path with any id, trailing slash optional. */
function pathPattern(path: string): RegExp {
  const escaped = path
    .replace(/\/$/, '')
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}/?$`);
}
