import { describe, expect, it } from 'vitest';
import { NEXT_TRICKS } from '../../test/support/redirect-tricks.ts';
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

describe('safeNext against redirect tricks', () => {
  it('never gives a Location a browser reads as another origin', () => {
    const site = 'https://earshot.example';
    for (const next of NEXT_TRICKS) {
      const location = safeNext(next);
      // What the browser does with the Location header: resolve it against the page's address.
      const target = new URL(location, `${site}/apiv2/login/`);
      expect(target.origin, `${JSON.stringify(next)} -> ${location}`).toBe(site);
      expect(location.startsWith('//'), `${JSON.stringify(next)} -> ${location}`).toBe(false);
    }
  });

  it('keeps ordinary paths whose dot segments stay on the site, normalised', () => {
    expect(safeNext('/apiv2/./apply/')).toBe('/apiv2/apply/');
    expect(safeNext('/a/../apiv2/account/')).toBe('/apiv2/account/');
  });
});
