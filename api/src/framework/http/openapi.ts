import { z } from 'zod';
import { FORMATS } from './render.ts';
import { type AnyRoute, toOpenApiPath } from './route.ts';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  /** The query parameter that carries an API key (`token`; version 1 also reads `api_key`). */
  keyParameters?: string[];
}

type JsonSchema = Record<string, unknown>;

const errorSchema: JsonSchema = {
  type: 'object',
  properties: { detail: { description: 'what went wrong; a string, or a map of field to messages' } },
  required: ['detail'],
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request: a parameter is missing or malformed',
  401: 'Unauthorized: missing, invalid or expired credentials',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  416: 'Range not satisfiable',
  429: 'Too many requests',
};

/**
 * The OpenAPI 3.0 document, generated from the very route definitions the server mounts, so the
 * document cannot drift from what is served.
 */
export function buildOpenApi(routes: readonly AnyRoute[], info: OpenApiInfo): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const { keyParameters = ['token'], ...rest } = info;
  const keySchemes = keyParameters.map((name) => (name === 'token' ? 'apiKeyQuery' : `apiKeyQuery_${name}`));
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    paths[path] ??= {};
    const item = paths[path];
    item[route.method.toLowerCase()] = operation(route, keySchemes);
  }
  const querySchemes = Object.fromEntries(
    keyParameters.map((name, i) => [keySchemes[i], { type: 'apiKey', in: 'query', name }]),
  );
  return {
    openapi: '3.0.3',
    info: rest,
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        apiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'the API key as `Token <API_KEY>`',
        },
        ...querySchemes,
        oauth2: { type: 'http', scheme: 'bearer', description: 'OAuth2 access token' },
      },
      schemas: { Error: errorSchema },
    },
  };
}

function operation(route: AnyRoute, keySchemes: string[]): JsonSchema {
  const parameters = [
    ...objectParameters(route.params, 'path'),
    ...objectParameters(route.query, 'query'),
    {
      name: 'format',
      in: 'query',
      required: false,
      description: 'response format; without it the Accept header decides, JSON by default',
      schema: { type: 'string', enum: [...FORMATS] },
    },
  ];
  const responses: Record<string, unknown> = { '200': successResponse(route) };
  const statuses = new Set<number>([400, 405, ...(route.errors ?? [])]);
  if (route.params) statuses.add(404);
  if (route.auth !== 'public') statuses.add(401);
  for (const status of [...statuses].sort()) {
    responses[String(status)] = {
      description: ERROR_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    parameters,
    responses,
  };
  if (route.description) op.description = route.description;
  if (route.files) op.requestBody = fileRequestBody(route);
  op.security =
    route.auth === 'public'
      ? []
      : route.auth === 'oauth2'
        ? [{ oauth2: [] }]
        : [{ apiKeyHeader: [] }, ...keySchemes.map((name) => ({ [name]: [] })), { oauth2: [] }];
  return op;
}

/** A route taking files: its multipart body, the files beside the text parameters (which may also come there). */
function fileRequestBody(route: AnyRoute): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(route.files ?? {})) {
    properties[name] = {
      type: 'string',
      format: 'binary',
      description: `${field.description} (at most ${Math.round(field.maxBytes / 1024 / 1024)} MB)`,
    };
  }
  return {
    required: false,
    content: { 'multipart/form-data': { schema: { type: 'object', properties } } },
  };
}

function successResponse(route: AnyRoute): JsonSchema {
  if (route.response === 'event-stream') {
    return {
      description: 'server-sent events (`id:`, `event:`, `data:` lines), open until the client leaves',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    };
  }
  if (route.response === 'file') {
    return {
      description: 'the file; range requests are answered with 206',
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    };
  }
  const schema = toSchema(route.response, 'output');
  return {
    description: route.summary,
    content: {
      'application/json': { schema },
      'application/xml': { schema: { type: 'string' } },
      'application/yaml': { schema: { type: 'string' } },
    },
  };
}

function objectParameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  if (!(schema instanceof z.ZodObject)) throw new Error(`${location} schema must be a z.object`);
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const json = toSchema(field, 'input');
    const description = json.description as string | undefined;
    delete json.description;
    const param: JsonSchema = {
      name,
      in: location,
      required: location === 'path' || !field.safeParse(undefined).success,
      schema: json,
    };
    if (description) param.description = description;
    return param;
  });
}

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}
