import { describe, expect, it } from 'vitest';
import { generateRequest } from './generate.ts';
import { targetsFromOpenApi } from './targets.ts';

const doc = {
  paths: {
    '/apiv2/sounds/{sound_id}/': {
      get: {
        parameters: [
          { name: 'sound_id', in: 'path' },
          { name: 'fields', in: 'query' },
        ],
      },
    },
    '/apiv2/search/': { get: { parameters: [{ name: 'filter', in: 'query' }] }, post: { requestBody: {} } },
  },
};
const valid = { soundIds: [5], packIds: [2], usernames: ['bob'], clientIds: ['c'] };
const creds = { apiKey: 'KEY', accessToken: 'TOKEN' };

describe('the fuzz generator', () => {
  it('reads every operation of an OpenAPI document with its path and query parameters', () => {
    expect(targetsFromOpenApi(doc)).toEqual([
      {
        method: 'GET',
        path: '/apiv2/sounds/{sound_id}/',
        pathParams: ['sound_id'],
        queryParams: ['fields'],
        multipart: false,
        kind: 'api',
      },
      {
        method: 'GET',
        path: '/apiv2/search/',
        pathParams: [],
        queryParams: ['filter'],
        multipart: false,
        kind: 'api',
      },
      {
        method: 'POST',
        path: '/apiv2/search/',
        pathParams: [],
        queryParams: [],
        multipart: true,
        kind: 'api',
      },
    ]);
  });

  it('makes the same request from the same seed and index, and different ones otherwise', () => {
    const targets = targetsFromOpenApi(doc);
    const a = generateRequest(19, 42, targets, valid, creds);
    const b = generateRequest(19, 42, targets, valid, creds);
    // Bodies compared as text: a deep comparison of a 2 MB Buffer takes half a minute.
    expect({ ...b, body: b.body?.toString('base64') }).toEqual({ ...a, body: a.body?.toString('base64') });
    const all = Array.from({ length: 200 }, (_, i) => {
      const r = generateRequest(19, i, targets, valid, creds);
      const body = r.body?.subarray(0, 200).toString('latin1');
      return JSON.stringify({ method: r.method, path: r.path, headers: r.headers, body });
    });
    expect(new Set(all).size).toBeGreaterThan(150);
    // Every path parameter is filled, and part of the requests carry the valid credentials.
    expect(all.some((r) => r.includes('{sound_id}') || r.includes('%7Bsound_id%7D'))).toBe(false);
    expect(all.filter((r) => r.includes('KEY') || r.includes('TOKEN')).length).toBeGreaterThan(50);
  });
});
