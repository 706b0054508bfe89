import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header carrying a delivery's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'Earshot-Signature';

/**
 * The HMAC-SHA256, keyed by the subscription's secret, of `<t>.<body>`: the time is signed with
 * the body, so a receiver that refuses an old `t` refuses a replayed delivery.
 */
export function signWebhookBody(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * What a receiver does with a delivery: true when `header` signs `body` with `secret` and its time
 * is within `toleranceSeconds` of `nowSeconds`.
 */
export function verifyWebhookSignature(
  secret: string,
  body: string,
  header: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  const parts = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const given = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(given)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = signWebhookBody(secret, body, t).slice(`t=${t},v1=`.length);
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}
