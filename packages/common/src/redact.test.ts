import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { redactUrl } from './redact.ts';

describe('secrets in log lines', () => {
  it('masks the values of credential parameters in a URL, whatever their case or encoding', () => {
    expect(redactUrl('/apiv2/search/?query=drum&token=SECRETKEY&page=2')).toBe(
      '/apiv2/search/?query=drum&token=[REDACTED]&page=2',
    );
    expect(
      redactUrl('/x/?TOKEN=a;code=b&client_secret=c&refresh_token=d&access_token=e&api_key=f#frag'),
    ).toBe(
      '/x/?TOKEN=[REDACTED];code=[REDACTED]&client_secret=[REDACTED]&refresh_token=[REDACTED]&access_token=[REDACTED]&api_key=[REDACTED]#frag',
    );
    expect(redactUrl('/x/?t%6Fken=SECRET')).toBe('/x/?t%6Fken=[REDACTED]');
    // Names that merely contain a secret name stay, as do paths without a query.
    expect(redactUrl('/x/?mytoken=1&tokens=2&zipcode=3')).toBe('/x/?mytoken=1&tokens=2&zipcode=3');
    expect(redactUrl('/apiv2/sounds/1/')).toBe('/apiv2/sounds/1/');
  });

  it('keeps secrets out of every line the logger writes, and keeps error codes', () => {
    const lines: string[] = [];
    const logger = createLogger('info', 'test', { write: (line: string) => lines.push(line) });
    logger.info({ url: '/apiv2/me/?access_token=AT123&x=1' }, 'request');
    logger.child({ reqId: 'r' }).info({ url: '/cb?code=CODE123&state=s' }, 'request');
    logger.info(
      {
        authorization: 'Bearer BEARER123',
        headers: { authorization: 'Token APIKEY123', cookie: 'earshot_session=COOKIE123' },
        body: {
          client_secret: 'SECRET123',
          code: 'CODE456',
          refresh_token: 'RT123',
          grant_type: 'refresh_token',
        },
        err: { code: 'not_found', message: 'gone' },
      },
      'details',
    );
    const all = lines.join('');
    for (const secret of [
      'AT123',
      'CODE123',
      'BEARER123',
      'APIKEY123',
      'COOKIE123',
      'SECRET123',
      'CODE456',
      'RT123',
    ]) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('state=s');
    expect(all).toContain('"grant_type":"refresh_token"');
    expect(all).toContain('"code":"not_found"');
    expect(lines).toHaveLength(3);
  });
});
