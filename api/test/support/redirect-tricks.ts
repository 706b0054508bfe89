/**
 * Sign-in `next` values that resolve (or that the browser, reading the Location they become,
 * resolves again) to another host: dot segments, encoded dots and slashes, backslashes, tabs and
 * newlines the URL parser strips. Shared by safe-next.test.ts and the OAuth2 abuse suite.
 */
export const NEXT_TRICKS = [
  '/.//evil.example/',
  '/..//evil.example/',
  '/%2e//evil.example/',
  '/%2E%2E//evil.example/',
  '/a/..//evil.example/',
  '/a/.././/evil.example/x?y#z',
  '/./\\evil.example/',
  '/.\\/evil.example/',
  '/\\/evil.example/',
  '/.%2f/evil.example/',
  '/%2f/evil.example/',
  '/%5c/evil.example/',
  '/.//%09/evil.example/',
  '/\t/evil.example/',
  '/\n/evil.example/',
  '/.\r//evil.example/',
  '/ //evil.example/',
  '/..;//evil.example/',
  '/.%00//evil.example/',
  '///evil.example/',
  '/.///evil.example/',
  '/https://evil.example/',
  '/.//evil.example:443/',
  '/.//user@evil.example/',
  '/%2e%2e/%2e%2e//evil.example/',
];

/** redirect_uri values that are not exactly an application's registered `https://app.example/callback`. */
export const REDIRECT_URI_TRICKS = [
  'https://evil.example/callback',
  'https://app.example.evil.example/callback',
  'https://app.example@evil.example/callback',
  'https://app.example/callback/../../evil',
  'https://app.example/callback/.././/evil.example/',
  'https://app.example/callback%2f..%2f..%2fevil',
  'https://app.example/callback?next=https://evil.example/',
  'https://app.example/callback#@evil.example',
  'https://APP.example/callback',
  'https://app.example:443/callback',
  'https://app.example/callback/',
  'http://app.example/callback',
  '//evil.example/callback',
  '/\\evil.example/callback',
  'https://app.example\\@evil.example/callback',
  ' https://app.example/callback',
  'https://app.example/callback\t',
  'javascript:alert(1)//https://app.example/callback',
];
