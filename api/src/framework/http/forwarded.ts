import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type Koa from 'koa';

/** Who sent a request and how, as far as this server can trust what it was told. */
export interface ClientFacts {
  /** The client's address: the peer's, or the one the outermost trusted proxy saw. */
  ip: string;
  protocol: 'http' | 'https';
  /** The host the client asked for (Host, or the trusted proxy's X-Forwarded-Host). */
  host: string | undefined;
}

const cache = new WeakMap<IncomingMessage, ClientFacts>();

/**
 * The one reading of a request's client address, scheme and host, for everything that depends on
 * them (the sign-in throttle, cookies' Secure flag, the https rule of OAuth2, links, the hot path).
 *
 * `trustedHops` is TRUST_PROXY: how many reverse proxies stand in front of this server. Each proxy
 * appends the address it received the request from to X-Forwarded-For, so only the last
 * `trustedHops` entries were written by proxies of this deployment; everything to their left came
 * from the client and may be anything. The client is the entry the outermost trusted proxy wrote
 * (with the peer address as the last hop). X-Forwarded-Proto and X-Forwarded-Host are read the
 * same way: the value the trusted hop set, never a value the client put first, so
 * `X-Forwarded-Proto: https, http` through one proxy is http. Koa's own reading (the leftmost
 * entry) is what let a client choose its address and skip the sign-in throttle.
 */
export function clientFacts(req: IncomingMessage, trustedHops: number): ClientFacts {
  const known = cache.get(req);
  if (known) return known;
  const peer = req.socket.remoteAddress ?? '';
  const direct: ClientFacts = {
    ip: peer,
    protocol: (req.socket as TLSSocket).encrypted ? 'https' : 'http',
    host: header(req, 'host'),
  };
  let facts = direct;
  if (trustedHops > 0) {
    const forwardedFor = [...list(header(req, 'x-forwarded-for')), peer];
    const proto = trustedEntry(list(header(req, 'x-forwarded-proto')), trustedHops)?.toLowerCase();
    facts = {
      ip: forwardedFor[Math.max(0, forwardedFor.length - 1 - trustedHops)],
      protocol: proto === 'https' || proto === 'http' ? proto : direct.protocol,
      host: trustedEntry(list(header(req, 'x-forwarded-host')), trustedHops) ?? direct.host,
    };
  }
  cache.set(req, facts);
  return facts;
}

/**
 * Makes Koa's `ctx.ip`, `ctx.protocol`, `ctx.secure`, `ctx.host` (and what derives from them:
 * `ctx.origin`, `ctx.href`, the Secure flag of ctx.cookies) answer from clientFacts, for this
 * application only. Koa's `app.proxy` stays off: its leftmost-entry reading must never be used.
 */
export function trustForwardedHeaders(app: Koa, trustedHops: number): void {
  app.proxy = false;
  const facts = (request: { req: IncomingMessage }) => clientFacts(request.req, trustedHops);
  Object.defineProperties(app.request, {
    ip: {
      configurable: true,
      get(this: { req: IncomingMessage }) {
        return facts(this).ip;
      },
    },
    protocol: {
      configurable: true,
      get(this: { req: IncomingMessage }) {
        return facts(this).protocol;
      },
    },
    host: {
      configurable: true,
      get(this: { req: IncomingMessage }) {
        return facts(this).host ?? '';
      },
    },
  });
}

/** The entry the outermost trusted proxy wrote: `hops` from the right, or the leftmost when fewer. */
function trustedEntry(entries: string[], hops: number): string | undefined {
  if (entries.length === 0) return undefined;
  return entries[Math.max(0, entries.length - hops)];
}

function list(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return (Array.isArray(value) ? value.join(',') : value) || undefined;
}
