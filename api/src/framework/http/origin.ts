import type { Context } from 'koa';

/** Names a link may always start with when PUBLIC_URL is unset: this machine's. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
/** A Host header is a name or address and an optional port; anything else is never reflected. */
const HOST_SHAPE = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * Where links may point: PUBLIC_URL when the deployment sets one, else the request's own host, but
 * only when it is one of `allowedHosts` (ALLOWED_HOSTS, the loopback names and HOST); every other
 * Host header gets links to the address the request arrived at. A page or a record must never
 * send a client to a host an attacker named in the request (cache poisoning, password-reset-style
 * link hijacking).
 */
export interface LinkOrigins {
  publicUrl?: string | undefined;
  /** Lower-case `name` (any port) or `name:port` entries; the loopback names are always allowed. */
  allowedHosts?: readonly string[];
}

/** The allowed names for a deployment: ALLOWED_HOSTS, and HOST unless it is a wildcard address. */
export function allowedLinkHosts(config: { ALLOWED_HOSTS: readonly string[]; HOST: string }): string[] {
  const host = config.HOST.toLowerCase();
  const bound = host === '0.0.0.0' || host === '::' ? [] : [host.includes(':') ? `[${host}]` : host];
  return [...config.ALLOWED_HOSTS, ...bound];
}

/** The absolute origin every link starts with (Koa reads X-Forwarded-Proto/Host only with TRUST_PROXY). */
export function requestOrigin(ctx: Context, origins: LinkOrigins | string | undefined): string {
  const policy = typeof origins === 'object' ? origins : { publicUrl: origins };
  const socket = ctx.req.socket;
  return linkOrigin(policy, ctx.protocol, ctx.host, socket.localAddress, socket.localPort);
}

/** requestOrigin for a bare node:http request (the hot path). */
export function linkOrigin(
  origins: LinkOrigins,
  protocol: string,
  host: string | undefined,
  localAddress: string | undefined,
  localPort: number | undefined,
): string {
  if (origins.publicUrl) return origins.publicUrl.replace(/\/+$/, '');
  // A forwarded protocol is a header like any other: only the two that mean something.
  const scheme = protocol === 'https' ? 'https' : 'http';
  if (host && isAllowedHost(host, origins.allowedHosts ?? [])) return `${scheme}://${host}`;
  return `${scheme}://${socketHost(localAddress, localPort)}`;
}

export function isAllowedHost(host: string, allowed: readonly string[]): boolean {
  if (!HOST_SHAPE.test(host)) return false;
  const lower = host.toLowerCase();
  const name = lower.startsWith('[') ? lower.slice(0, lower.indexOf(']') + 1) : lower.split(':')[0];
  if (LOOPBACK_HOSTS.includes(name)) return true;
  return allowed.some((entry) => entry === name || entry === lower);
}

function socketHost(address: string | undefined, port: number | undefined): string {
  if (!address) return `127.0.0.1${port ? `:${port}` : ''}`;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  const name = v4.includes(':') ? `[${v4}]` : v4;
  return port ? `${name}:${port}` : name;
}
