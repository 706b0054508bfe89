import { describe, expect, it } from 'vitest';
import { SIGNED_IN_LANDING, safeNext } from './safe-next.ts';

describe('safeNext', () => {
  it('keeps same-origin paths with their query and fragment', () => {
    expect(safeNext('/apiv2/apply/?x=1#y')).toBe('/apiv2/apply/?x=1#y');
    expect(safeNext('/apiv2/oauth2/authorize/?client_id=a&state=b')).toBe(
      '/apiv2/oauth2/authorize/?client_id=a&state=b',
    );
  });

  it('refuses anything that could leave the site', () => {
    for (const next of [
      undefined,
      '',
      'apiv2/',
      '//evil.example/',
      '/\\evil.example',
      '\\\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/\tevil',
      `/${'a'.repeat(2001)}`,
    ]) {
      expect(safeNext(next), String(next)).toBe(SIGNED_IN_LANDING);
    }
  });
});
