import type Router from '@koa/router';

/** One operation the fuzzer aims at: a method, a path template with `{name}` parameters, its query names. */
export interface FuzzTarget {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** Takes a multipart body with files (uploads, search by example). */
  multipart: boolean;
  kind: 'api' | 'page';
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>
  >;
}

/**
 * The operations of an OpenAPI document the server itself serves (generated from the route
 * definitions), so a route added later is fuzzed without touching the fuzzer.
 */
export function targetsFromOpenApi(doc: OpenApiDocument): FuzzTarget[] {
  const targets: FuzzTarget[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const parameters = op.parameters ?? [];
      targets.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        multipart: op.requestBody !== undefined,
        kind: 'api',
      });
    }
  }
  return targets;
}

/** The web pages, read from the router that serves them (`:name` parameters become `{name}`). */
export function targetsFromRouter(router: Router): FuzzTarget[] {
  const targets: FuzzTarget[] = [];
  for (const layer of router.stack) {
    const path = String(layer.path);
    if (!path.startsWith('/')) continue;
    const template = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const pathParams = [...template.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
    for (const method of layer.methods) {
      if (method === 'HEAD') continue;
      targets.push({
        method,
        path: template,
        pathParams,
        queryParams: PAGE_QUERY,
        multipart: false,
        kind: 'page',
      });
    }
  }
  return targets;
}

/** What the pages read from the query string (sign-in's `next`, OAuth2's authorization request). */
const PAGE_QUERY = ['next', 'client_id', 'response_type', 'state', 'redirect_uri', 'scope', 'code'];
