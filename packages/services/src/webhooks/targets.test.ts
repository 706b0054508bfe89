import { describe, expect, it } from 'vitest';
import { signWebhookBody, verifyWebhookSignature } from './signature.ts';
import { isPublicAddress, resolveWebhookTarget } from './targets.ts';

describe('webhook targets', () => {
  it.each([
    ['127.0.0.1', false],
    ['127.8.9.10', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['172.32.0.1', true],
    ['192.168.0.10', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:93.184.215.14', true],
    ['93.184.215.14', true],
    ['2606:4700:4700::1111', true],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('connects to the address it checked, and lets the operator allow a private one', async () => {
    await expect(resolveWebhookTarget('http://127.0.0.1:9/x', false)).rejects.toThrow(/not a public address/);
    const target = await resolveWebhookTarget('http://127.0.0.1:9/x', true);
    expect(target).toMatchObject({ address: '127.0.0.1', family: 4 });
    expect(target.url.pathname).toBe('/x');
    await expect(resolveWebhookTarget('http://no-such-host.invalid/', true)).rejects.toThrow(
      /does not resolve/,
    );
  });
});

describe('webhook signatures', () => {
  const body = '{"id":"1"}';
  const now = 1_800_000_000;
  it('verifies its own signature within the tolerance and nothing else', () => {
    const header = signWebhookBody('whsec_a', body, now);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature('whsec_a', body, header, { nowSeconds: now + 10 })).toBe(true);
    expect(verifyWebhookSignature('whsec_b', body, header, { nowSeconds: now })).toBe(false);
    expect(verifyWebhookSignature('whsec_a', `${body} `, header, { nowSeconds: now })).toBe(false);
    expect(verifyWebhookSignature('whsec_a', body, header, { nowSeconds: now + 301 })).toBe(false);
    // The time is signed: moving it to look fresh breaks the signature.
    const moved = header.replace(`t=${now}`, `t=${now + 1000}`);
    expect(verifyWebhookSignature('whsec_a', body, moved, { nowSeconds: now + 1000 })).toBe(false);
    expect(verifyWebhookSignature('whsec_a', body, 'garbage', { nowSeconds: now })).toBe(false);
  });
});
