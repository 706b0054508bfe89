import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainable } from './drain.ts';

describe('drainable', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('watches a keep-alive connection for its close once, however many requests it carries', async () => {
    const closeListeners: number[] = [];
    server = http.createServer();
    const { listener } = drainable(server, (req, res) => {
      closeListeners.push(req.socket.listenerCount('close'));
      res.end('ok');
    });
    server.on('request', listener);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<void>((resolve, reject) =>
        http
          .get({ host: '127.0.0.1', port, agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject),
      );
    for (let i = 0; i < 30; i++) await get();
    agent.destroy();
    // One connection (maxSockets 1), so the count can only grow if each request added a listener.
    expect(closeListeners).toHaveLength(30);
    expect(closeListeners[29]).toBe(closeListeners[1]);
  });

  it('ends an idle keep-alive connection when draining, and resolves once it is gone', async () => {
    server = http.createServer();
    const { listener, drain } = drainable(server, (_req, res) => res.end('ok'));
    server.on('request', listener);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const closed = new Promise<void>((resolve) =>
      http.get({ host: '127.0.0.1', port, agent }, (res) => {
        res.resume();
        res.socket.once('close', () => resolve());
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await drain(10_000);
    await closed;
    // Cut by the idle grace (300 ms), not by the 10 s limit.
    expect(Date.now() - started).toBeLessThan(5_000);
    agent.destroy();
  });
});
