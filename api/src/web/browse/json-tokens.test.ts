import { describe, expect, it } from 'vitest';
import { jsonTokens } from './json-tokens.ts';

describe('jsonTokens', () => {
  const value = {
    count: 2,
    next: 'http://h/apiv2/search/text/?page=2',
    results: [{ id: 7, name: '<b>', pack: { id: 3 } }, { id: 8 }],
    x: [],
    y: {},
    z: null,
    bad: 'javascript:alert(1)',
    template: 'http://h/apiv2/sounds/{sound_id}/',
    skipped: undefined,
  };
  const tokens = jsonTokens(value, { itemLink: (id) => `/s/${id}/` });

  it('gives exactly the text of JSON.stringify(value, null, 2)', () => {
    expect(tokens.map((t) => t.text).join('')).toBe(JSON.stringify(value, null, 2));
  });

  it('links http(s) addresses and the ids of result items, nothing else', () => {
    expect(tokens.filter((t) => t.href).map((t) => t.href)).toEqual([
      'http://h/apiv2/search/text/?page=2',
      '/s/7/',
      '/s/8/',
    ]);
  });
});
