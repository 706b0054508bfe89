import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BodyTooLarge, formatBytes } from '../middleware/body-limit.ts';
import { bodyLimitOverrides } from './body-limits.ts';
import { defineRoute } from './route.ts';

const GiB = 1024 ** 3;

function uploadRoute(maxBytes: number) {
  return defineRoute({
    method: 'POST',
    path: '/apiv2/sounds/upload/',
    operationId: 'upload',
    summary: 'upload',
    tags: [],
    auth: 'oauth2',
    bodyParams: true,
    files: { audiofile: { store: 'temp-file', maxBytes, description: 'the file' } },
    response: z.object({}),
    handler: async () => ({}),
  });
}

describe('the 413 of a route that takes files', () => {
  it('names the file limit as configured (1 GiB is "1 GB", not "1024.3 MB") and the room for the other fields', () => {
    const [override] = bodyLimitOverrides([uploadRoute(GiB)]);
    expect(override.bytes).toBe(GiB + 256 * 1024);
    const refused = new BodyTooLarge(override.bytes, override.allowance);
    expect(refused.status).toBe(413);
    expect(refused.message).toBe(
      "The body is larger than the 1 GB 'audiofile' may hold plus 256 KB of other fields.",
    );
  });

  it('writes sizes in the largest whole unit, with at most one decimal', () => {
    expect(formatBytes(GiB)).toBe('1 GB');
    expect(formatBytes(1.5 * GiB)).toBe('1.5 GB');
    expect(formatBytes(2_000_000)).toBe('1.9 MB');
    expect(formatBytes(256 * 1024)).toBe('256 KB');
    expect(formatBytes(200 * 1024 * 1024)).toBe('200 MB');
    expect(formatBytes(900)).toBe('900 bytes');
  });
});
