import { findUserByEmail, findUserByName } from '@earshot/catalogue';
import { SIGN_UP_LIMIT } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WEB_PASSWORD, WebClient } from '../support/index.ts';

/**
 * Sign-up (SIGNUP_ENABLED) as an attacker would use it: it must not tell whether an email address
 * has an account, and one address cannot sign up without end. Real server, real requests; the
 * client address comes from X-Forwarded-For (one hop, TRUST_PROXY) so each test has its own.
 */
describe('sign-up: no email oracle, throttled per address', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ TRUST_PROXY: '1', SIGNUP_ENABLED: '1' });
    await addWebUser(server.catalogue.db, 'carol'); // carol@example.org
  });
  afterAll(() => server?.stop());

  function browserAt(address: string): WebClient {
    // What a TLS proxy in front sends (OAUTH2_HTTPS_ONLY keeps password pages off plain http).
    return new WebClient(server.origin, { 'X-Forwarded-For': address, 'X-Forwarded-Proto': 'https' });
  }

  async function signUp(browser: WebClient, username: string, email: string) {
    await browser.get('/apiv2/signup/');
    return browser.post('/apiv2/signup/', { username, email, password: WEB_PASSWORD });
  }

  it('answers the same whether or not the email has an account, and never gives it a second one', async () => {
    const fresh = await signUp(browserAt('198.51.100.1'), 'hana', 'hana@example.org');
    const taken = await signUp(browserAt('198.51.100.2'), 'ivan', 'CAROL@example.org');
    for (const res of [fresh, taken]) {
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/apiv2/account/');
      expect(res.setCookies.filter((c) => c.startsWith('earshot_session='))).toHaveLength(1);
    }
    expect(taken.body).toBe(fresh.body);
    const db = server.catalogue.db;
    expect((await findUserByEmail(db, 'carol@example.org'))?.username).toBe('carol');
    expect((await findUserByName(db, 'ivan'))?.email).toBe('');
    expect((await findUserByName(db, 'hana'))?.email).toBe('hana@example.org');
    // carol still signs in by her email; ivan by his username.
    expect((await browserAt('198.51.100.5').signIn('carol@example.org')).status).toBe(303);
    expect((await browserAt('198.51.100.6').signIn('ivan')).status).toBe(303);
    // A username is public (its profile page): a taken one is refused, and says so.
    const name = await signUp(browserAt('198.51.100.3'), 'Carol', 'other@example.org');
    expect(name.status).toBe(409);
  });

  it(`refuses sign-up number ${SIGN_UP_LIMIT.points + 1} from one address within the hour: 429 with Retry-After`, async () => {
    const browser = browserAt('203.0.113.9');
    await browser.get('/apiv2/signup/');
    for (let i = 0; i < SIGN_UP_LIMIT.points; i++) {
      // Failed attempts count too: probing names costs the same as making accounts.
      const res = await browser.post('/apiv2/signup/', {
        username: `probe${i}`,
        email: `p${i}@x.org`,
        password: 's',
      });
      expect(res.status).toBe(400);
    }
    const refused = await signUp(browser, 'judy', 'judy@example.org');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(refused.body).toContain('Too many sign-ups from your network. Try again in 60 minutes.');
    expect(await findUserByName(server.catalogue.db, 'judy')).toBeUndefined();
    // Another address is not affected.
    expect((await signUp(browserAt('203.0.113.10'), 'judy', 'judy@example.org')).status).toBe(303);
  });
});
