import type { Db } from '@earshot/catalogue';
import { createUser } from '@earshot/services';

/** The password of the users `addWebUser` creates. */
export const WEB_PASSWORD = 'correct horse battery staple';

/** A user who can sign in on the web pages (the seed's users have no password). */
export function addWebUser(db: Db, username = 'carol', password = WEB_PASSWORD): Promise<number> {
  return createUser(db, { username, email: `${username}@example.org`, password });
}

export interface WebResponse {
  status: number;
  headers: Headers;
  body: string;
  /** The Set-Cookie headers of this response, as sent. */
  setCookies: string[];
}

/**
 * A browser without JavaScript, for black-box tests of the web pages: keeps cookies (by name,
 * ignoring attributes), does not follow redirects, and reads the CSRF token of the last page.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  csrfToken = '';

  constructor(
    readonly origin: string,
    readonly headers: Record<string, string> = {},
  ) {}

  get(path: string): Promise<WebResponse> {
    return this.request('GET', path);
  }

  /** Posts a form; the last page's CSRF token is added unless `fields` names one. */
  post(path: string, fields: Record<string, string> = {}): Promise<WebResponse> {
    const body = new URLSearchParams({ csrf_token: this.csrfToken, ...fields });
    return this.request('POST', path, body);
  }

  /** Opens the sign-in page and sends the form. */
  async signIn(login: string, password = WEB_PASSWORD, next?: string): Promise<WebResponse> {
    await this.get('/apiv2/login/');
    return this.post('/apiv2/login/', { login, password, ...(next ? { next } : {}) });
  }

  async request(
    method: string,
    path: string,
    body?: URLSearchParams,
    headers: Record<string, string> = {},
  ): Promise<WebResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(path, this.origin), {
      method,
      redirect: 'manual',
      headers: { ...this.headers, ...headers, ...(cookie ? { Cookie: cookie } : {}) },
      body,
    });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const token = /name="csrf_token" value="([^"]*)"/.exec(text)?.[1];
    if (token) this.csrfToken = token;
    return { status: res.status, headers: res.headers, body: text, setCookies };
  }
}
