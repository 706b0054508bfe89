import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionsOn, localPorts } from './processes.ts';

/** The /proc readings the process benchmarks rest on, against sockets this test opens itself. */
describe("a process's sockets from /proc", () => {
  let server: http.Server;
  let port = 0;
  const clients: net.Socket[] = [];

  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    for (let i = 0; i < 3; i++) {
      const socket = net.connect({ host: '127.0.0.1', port });
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      clients.push(socket);
    }
    // The server side of each connection is accepted on its next turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
  afterAll(async () => {
    for (const socket of clients) socket.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('counts the established connections a process holds on a port, not its listening socket', () => {
    // This process holds both ends: three accepted on `port`, three clients on other ports.
    expect(connectionsOn([process.pid], port)).toEqual([3]);
    expect(connectionsOn([process.pid], port + 1 === 65536 ? 1 : port + 1)).toEqual([0]);
    // A process that does not exist holds none.
    expect(connectionsOn([process.pid, 2 ** 22 + 1], port)).toEqual([3, 0]);
  });

  it('names the local ports of its sockets: the listening one and each client', () => {
    const ports = localPorts([process.pid]);
    expect(ports.has(port)).toBe(true);
    for (const socket of clients) expect(ports.has(socket.localPort as number)).toBe(true);
  });
});
