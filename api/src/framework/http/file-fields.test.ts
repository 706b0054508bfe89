import fs from 'node:fs/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveRoutes } from '../../../test/support/routes.ts';
import { type ApiKeyCredential, tokenStrategy } from '../auth/token-strategy.ts';
import { createRateLimiter } from '../rate-limits/rate-limiter.ts';
import { type AnyRoute, defineRoute } from './route.ts';

/**
 * A route's `files` (multipart-fields.ts through mount.ts): file parts in memory or in a temporary
 * file that is gone after the request, limits as a 413 naming the part, unknown file parts refused,
 * and a file with `rateLimit: 'strict'` counting against the strict limits besides the route's own.
 */

const seen: Array<{ fields: Record<string, string>; doc?: string; clip?: { size: number; onDisk: string } }> =
  [];

const upload = defineRoute({
  method: 'POST',
  path: '/t/upload/',
  operationId: 'upload',
  summary: 'a route taking files',
  tags: ['test'],
  auth: 'read',
  scope: 'read', // a read taking files, as search by example is
  query: z.object({ name: z.string().optional() }),
  bodyParams: true,
  files: {
    doc: { store: 'memory', maxBytes: 1024, description: 'a small document' },
    clip: { store: 'temp-file', maxBytes: 64 * 1024, rateLimit: 'strict', description: 'a clip' },
  },
  response: z.object({ ok: z.boolean(), path: z.string().optional() }),
  handler: async ({ query, files }) => {
    const doc = files.doc?.store === 'memory' ? files.doc.data.toString() : undefined;
    const clip = files.clip?.store === 'temp-file' ? files.clip : undefined;
    seen.push({
      fields: { ...(query.name ? { name: query.name } : {}) },
      doc,
      clip: clip && { size: clip.size, onDisk: await fs.readFile(clip.path, 'utf8') },
    });
    return { ok: true, path: clip?.path };
  },
});
const routes: AnyRoute[] = [upload];

const credentials = new Map<string, ApiKeyCredential>([
  ['k1', { clientId: 'c1', userId: 1, username: 'u', active: true, rateLimitLevel: 'standard' }],
  ['k2', { clientId: 'c2', userId: 2, username: 'v', active: true, rateLimitLevel: 'standard' }],
]);
let server: { origin: string; close: () => Promise<void> };

beforeAll(async () => {
  const clock = { t: Date.UTC(2031, 0, 7, 12) + 5_000 };
  server = await serveRoutes(routes, {
    strategies: [tokenStrategy(async (k) => credentials.get(k))],
    rateLimiter: createRateLimiter({ now: () => clock.t }),
  });
});
afterAll(async () => {
  await server?.close();
});

function send(parts: Record<string, string | [string, string]>, key = 'k1') {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value[0]]), value[1]);
  }
  return fetch(`${server.origin}/t/upload/`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Token ${key}` },
  });
}

describe('route file fields', () => {
  it('hands the handler text fields, a file in memory and a temporary file that is deleted afterwards', async () => {
    const res = await send({ name: 'x', doc: ['{"a":1}', 'd.json'], clip: ['RIFF....', 'c.wav'] });
    const body = (await res.json()) as { ok: boolean; path: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const last = seen[seen.length - 1];
    expect(last).toEqual({ fields: { name: 'x' }, doc: '{"a":1}', clip: { size: 8, onDisk: 'RIFF....' } });
    // The temporary file carries only the client's extension, and is gone once answered.
    expect(body.path.endsWith('clip.wav')).toBe(true);
    await expect(fs.stat(body.path)).rejects.toThrow(/ENOENT/);
  });

  it('refuses what is too large (413 naming the part) and file parts it does not name (400)', async () => {
    const before = await uploadFolders();
    const big = await send({ doc: ['x'.repeat(1025), 'd.json'] });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { detail: string }).detail).toBe("The file 'doc' is larger than 1 KB.");
    const bigClip = await send({ clip: ['x'.repeat(64 * 1024 + 1), 'c.wav'] });
    expect(bigClip.status).toBe(413);
    expect(((await bigClip.json()) as { detail: string }).detail).toBe(
      "The file 'clip' is larger than 64 KB.",
    );
    const other = await send({ other: ['x', 'o.bin'] });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { detail: string }).detail).toMatch(/not accepted here \('other'\)/);
    expect(await uploadFolders()).toEqual(before);
  });

  it('answers a body that ends inside a file part (taken or not) with a 400, and nothing is left uncaught', async () => {
    // Found by the fuzz suite: busboy destroys the open part's stream with "Unexpected end of form",
    // and a part without an error listener (drained, or waiting for its temporary folder) threw
    // that out of the process.
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      for (const name of ['other', 'doc', 'clip']) {
        const body = `--b\r\nContent-Disposition: form-data; name="${name}"; filename="x.bin"\r\n\r\nabc`;
        const res = await fetch(`${server.origin}/t/upload/`, {
          method: 'POST',
          body,
          headers: { Authorization: 'Token k1', 'Content-Type': 'multipart/form-data; boundary=b' },
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { detail: string }).detail).toBeTruthy();
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('counts a request carrying the strict file against the strict limits (30 a minute), others not', async () => {
    for (let i = 1; i <= 30; i++) {
      const res = await send({ clip: ['abc', 'c.wav'] }, 'k2');
      expect(res.status).toBe(200);
    }
    const refused = await send({ clip: ['abc', 'c.wav'] }, 'k2');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/30\/minute/);
    // Without the clip the same credential is still within the standard 60 a minute.
    const withoutClip = await send({ doc: ['{}', 'd.json'] }, 'k2');
    expect(withoutClip.status).toBe(200);
  });
});

async function uploadFolders(): Promise<string[]> {
  return (await fs.readdir(os.tmpdir())).filter((name) => name.startsWith('earshot-upload-')).sort();
}
