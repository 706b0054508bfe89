import net from 'node:net';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAVAILABLE_LOG_MESSAGE } from '../src/framework/middleware/unavailable-log.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const postgresUrl = await testService('postgres');

/**
 * Every 503 is logged once, at warn, with its cause and without secrets, whichever part answers
 * it: the hot path, the API, the web pages, /ready. The server runs on the PostgreSQL server
 * through a TCP relay the test cuts, as a network gone or a database down would.
 */
describe.skipIf(!postgresUrl)('503s are logged', () => {
  let server: TestServer;
  let database: { url: string; drop(): Promise<void> };
  let relay: net.Server;
  const sockets = new Set<net.Socket>();
  const lines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl!);
    const target = new URL(database.url);
    relay = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayed = new URL(database.url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String((relay.address() as net.AddressInfo).port);
    server = await startTestServer({ DATABASE_URL: relayed.toString() }, { log: (line) => lines.push(line) });
  });
  afterAll(async () => {
    await server?.stop().catch(() => {});
    relay?.close();
    await database?.drop();
  });

  const warnings = () =>
    lines
      .map((l) => JSON.parse(l) as Record<string, any>)
      .filter((l) => l.level === 40 && l.msg === UNAVAILABLE_LOG_MESSAGE);

  it('logs each 503 once at warn with its cause (hot path, API, web page, /ready), never the key', async () => {
    const key = server.seeded.apiKey;
    const { bd_808: warm, bd_klub: cold } = server.seeded.ids;
    // The key is known (cached) before the database goes: the hot path then reads the sound itself.
    expect((await fetch(`${server.origin}/apiv2/sounds/${warm}/?token=${key}`)).status).toBe(200);
    relay.close();
    for (const s of sockets) s.destroy();

    const paths = [
      `/apiv2/sounds/${cold}/?token=${key}`,
      `/apiv2/search/?query=kick&token=${key}`,
      '/people/alice/',
      '/ready',
    ];
    for (const path of paths) {
      const before = warnings().length;
      const res = await fetch(`${server.origin}${path}`);
      expect(res.status, path).toBe(503);
      await res.arrayBuffer();
      const logged = warnings().slice(before);
      expect(logged, path).toHaveLength(1);
      expect(logged[0].url).toBe(path.replace(key, '[REDACTED]'));
      expect(logged[0].cause.message, path).toMatch(
        path === '/ready' ? /^not ready: database \(database: / : /\S/,
      );
    }
    const text = lines.join('\n');
    expect(text).not.toContain(key);
  });
});
