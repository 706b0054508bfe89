// What two API hosts must agree on, asked of each host directly (not through the balancer): a
// sign-in session made on one is good on the other, an OAuth2 code granted on one is exchanged on
// the other, a write through one is read through the other, and a 60-per-minute key gets 60 in
// all, not 60 per host.

import { WEB_PASSWORD, WebClient } from '@earshot/api/testing';
import type { Db } from '@earshot/catalogue';
import { createApiCredential } from '@earshot/services';

const REDIRECT = 'https://app.example/callback';

export interface CrossHostOptions {
  db: Db;
  /** The two hosts' own origins. */
  origins: [string, string];
  /** A user with WEB_PASSWORD. */
  username: string;
  /** That user's Bearer token (write scope). */
  bearer: string;
  /** A read key without a rate limit. */
  apiKey: string;
  /** A new key of the standard level (60 requests a minute). */
  createLimited: () => Promise<string>;
}

export interface CrossHost {
  sessions: boolean;
  codes: boolean;
  writeVisibleS: number;
  rateLimitTotal: number;
}

export async function crossHostChecks(o: CrossHostOptions): Promise<CrossHost> {
  const { sessions, codes } = await signInAcross(o);
  return { sessions, codes, writeVisibleS: await writeAcross(o), rateLimitTotal: await limitAcross(o) };
}

/** Signs in on the first host, consents on the second with that session, exchanges the code on the first. */
async function signInAcross(o: CrossHostOptions): Promise<{ sessions: boolean; codes: boolean }> {
  const app = await createApiCredential(o.db, {
    username: o.username,
    name: 'Rehearsal application',
    redirectUri: REDIRECT,
    level: 'unlimited',
  });
  const first = new WebClient(o.origins[0]);
  const signedIn = await first.signIn(o.username, WEB_PASSWORD);
  if (signedIn.status !== 303) throw new Error(`sign-in on ${o.origins[0]}: ${signedIn.status}`);
  const second = new WebClient(o.origins[1]);
  for (const [name, value] of first.cookies) second.cookies.set(name, value);
  const authorize = `/apiv2/oauth2/authorize/?${new URLSearchParams({ client_id: app.client_id, response_type: 'code', state: 'r' })}`;
  let page = await second.get(authorize);
  const sessions = page.status === 200 && page.body.includes('name="allow"');
  // Without a shared session the code is asked for on the first host, to test codes all the same.
  const consenting = sessions ? second : first;
  if (!sessions) page = await first.get(authorize);
  const fields: Record<string, string> = {};
  for (const m of page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]] = m[2]
      .replace(/&amp;/g, '&')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"');
  }
  const consent = await consenting.post('/apiv2/oauth2/authorize/', { ...fields, allow: 'Authorize' });
  const location = consent.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (!code) return { sessions, codes: false };
  const exchangeOn = consenting === second ? o.origins[0] : o.origins[1];
  const res = await fetch(`${exchangeOn}/apiv2/oauth2/access_token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: app.client_id,
      client_secret: app.client_secret,
      code,
    }),
  });
  await res.text();
  return { sessions, codes: res.status === 200 };
}

async function commentsOn(origin: string, apiKey: string, soundId: number): Promise<number> {
  const res = await fetch(`${origin}/apiv2/sounds/${soundId}/?fields=num_comments`, {
    headers: { Authorization: `Token ${apiKey}`, Connection: 'close' },
  });
  const body = (await res.json()) as { num_comments?: number };
  if (res.status !== 200 || typeof body.num_comments !== 'number') {
    throw new Error(`sound ${soundId} on ${origin}: ${res.status} ${JSON.stringify(body)}`);
  }
  return body.num_comments;
}

/**
 * Seconds from a comment answered by the first host until the second host's processes all show it
 * (four reads in a row on fresh connections, which the host's cluster deals out in turn).
 */
async function writeAcross(o: CrossHostOptions): Promise<number> {
  const soundId = 1;
  const before = await commentsOn(o.origins[1], o.apiKey, soundId);
  const res = await fetch(
    `${o.origins[0]}/apiv2/sounds/${soundId}/comment/?comment=seen%20on%20both%20hosts`,
    {
      method: 'POST',
      headers: { Authorization: `Bearer ${o.bearer}` },
    },
  );
  if (res.status >= 300) throw new Error(`comment on ${o.origins[0]}: ${res.status} ${await res.text()}`);
  await res.text();
  const written = Date.now();
  let firstSeen: number | undefined;
  let inARow = 0;
  while (inARow < 4) {
    if (Date.now() - written > 60_000)
      throw new Error('a comment made on api1 was not seen on api2 within 60 s');
    const n = await commentsOn(o.origins[1], o.apiKey, soundId);
    if (n === before + 1) {
      firstSeen ??= Date.now();
      inARow++;
    } else {
      firstSeen = undefined;
      inARow = 0;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return ((firstSeen ?? Date.now()) - written) / 1000;
}

/** 120 requests of a 60-per-minute key, alternating between the hosts, in a few seconds: how many got through. */
async function limitAcross(o: CrossHostOptions): Promise<number> {
  const key = await o.createLimited();
  let ok = 0;
  for (let i = 0; i < 120; i++) {
    const res = await fetch(`${o.origins[i % 2]}/apiv2/sounds/${1 + i}/?token=${key}`);
    await res.text();
    if (res.status === 200) ok++;
    else if (res.status !== 429) throw new Error(`rate-limit probe: ${res.status} from ${o.origins[i % 2]}`);
  }
  return ok;
}
