import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { EarshotError, ValidationError } from '@earshot/common';

/** Where a delivery goes: the URL and the address it was checked at (the connection uses that one). */
export interface WebhookTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** A webhook URL refused: a 400 at registration, a failed attempt at delivery. */
export class WebhookTargetError extends ValidationError {}

class UnresolvableTargetError extends EarshotError {
  constructor(message: string) {
    super(message, 'webhook_target_unresolved', 400);
  }
}

// Not the public internet: loopback, private, link-local (cloud metadata), shared, multicast,
// reserved and documentation ranges, and their IPv6 counterparts (IPv4-mapped ones are unwrapped).
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

const LOOKUP_TIMEOUT_MS = 5_000;

/** True for an address on the public internet. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL's own form: http(s), no credentials in it, at most 2000 characters. */
export function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetError('url: not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new WebhookTargetError('url: only http and https URLs are delivered to');
  if (url.username || url.password)
    throw new WebhookTargetError('url: must not carry a user name or password');
  if (text.length > 2000) throw new WebhookTargetError('url: longer than 2000 characters');
  return url;
}

/**
 * Resolves the URL's host and refuses it when any of its addresses is not public, unless
 * `allowPrivate` (the operator's WEBHOOK_ALLOW_PRIVATE). The delivery connects to the address
 * checked here, so a name that resolves otherwise a moment later (DNS rebinding) gains nothing.
 */
export async function resolveWebhookTarget(text: string, allowPrivate: boolean): Promise<WebhookTarget> {
  const url = parseWebhookUrl(text);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      // A resolver that never answers must not hold a request (or a delivery) with it.
      let timer: NodeJS.Timeout | undefined;
      addresses = await Promise.race([
        lookup(host, { all: true, verbatim: true }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    } catch {
      throw new UnresolvableTargetError(`url: the host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new UnresolvableTargetError(`url: the host ${host} does not resolve`);
  if (!allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused)
      throw new WebhookTargetError(
        `url: ${host} is ${refused.address}, not a public address; webhooks are not delivered to loopback, private or link-local addresses`,
      );
  }
  const first = addresses[0];
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
