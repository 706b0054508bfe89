// The rehearsal's "hosts": Linux network namespaces on one bridge, each with its own address and a
// hosts file naming the others as deploy/ names them (earshot-db, earshot-redis, earshot-lb, …), so
// the environment files of deploy/ are used unchanged. Everything here is created under one run's
// prefix and removed by `teardown`, which also clears what a run killed before its teardown left.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** Host roles and the last byte of their address on the rehearsal's /24. */
export const HOSTS = {
  db: 2,
  redis: 3,
  lb: 4,
  api1: 11,
  api2: 12,
  worker1: 21,
  worker2: 22,
} as const;
export type HostName = keyof typeof HOSTS;

/** The names deploy/ uses for the hosts (deploy/env/*.env, deploy/haproxy/haproxy.cfg). */
export const HOST_NAMES: Record<HostName, string> = {
  db: 'earshot-db',
  redis: 'earshot-redis',
  lb: 'earshot-lb',
  api1: 'earshot-api1',
  api2: 'earshot-api2',
  worker1: 'earshot-worker1',
  worker2: 'earshot-worker2',
};

const PREFIX = 'esr';

export interface Network {
  /** The run's prefix: namespaces are `<id>-<host>`, the bridge `<id>`, the root sides of the veths `<id>h<byte>`. */
  id: string;
  subnet: string;
  /** The rehearsal's own address on the bridge (the load and the checks come from here). */
  driver: string;
  address(host: HostName): string;
  namespace(host: HostName): string;
  /** The bridge side of a host's cable: down = the host is cut off, up = plugged in again. */
  cable(host: HostName): string;
  /** Wraps a host's command so that it runs in the host's CPU group (cpu-budget.ts); unset = no groups. */
  inCpuGroup?: (host: HostName, command: string[]) => string[];
}

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Whether this process can make network namespaces (root and iproute2), with the reason when not. */
export function namespacesPossible(): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux') return { ok: false, reason: 'network namespaces are Linux only' };
  if (process.getuid?.() !== 0) return { ok: false, reason: 'making network namespaces needs root' };
  const probe = `${PREFIX}probe${process.pid}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) {
    return {
      ok: false,
      reason: `\`ip netns add\` failed: ${(made.stderr || made.error?.message || '').trim()}`,
    };
  }
  spawnSync('ip', ['netns', 'del', probe]);
  return { ok: true };
}

/** Whether the rehearsal process of run `id` (its pid) still runs. */
export function runIsAlive(id: string): boolean {
  const pid = Number(id.slice(PREFIX.length));
  if (!Number.isInteger(pid) || pid === process.pid) return pid === process.pid;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes inside a namespace (every process of that "host"). */
export function namespacePids(namespace: string): number[] {
  const out = spawnSync('ip', ['netns', 'pids', namespace], { encoding: 'utf8' });
  return (out.stdout ?? '')
    .split('\n')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}

/** kill -9 every process of a namespace, until none is left (a dying parent may still fork). */
export function killNamespace(namespace: string): number {
  const killed = new Set<number>();
  for (let round = 0; round < 20; round++) {
    const pids = namespacePids(namespace);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {
        // already gone
      }
    }
    spawnSync('sleep', ['0.1']);
  }
  return killed.size;
}

function removeRun(id: string): void {
  const namespaces = ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter((name) => name.startsWith(`${id}-`));
  for (const ns of namespaces) {
    killNamespace(ns);
    spawnSync('ip', ['netns', 'del', ns]);
    fs.rmSync(`/etc/netns/${ns}`, { recursive: true, force: true });
  }
  // Deleting a namespace deletes its end of each veth, and so the pair; the bridge is left.
  spawnSync('ip', ['link', 'del', id], { stdio: 'ignore' });
}

/** Removes the namespaces and bridges of earlier runs whose driver process is gone. */
export function removeAbandonedRuns(): string[] {
  const ids = new Set<string>();
  for (const line of ip('netns', 'list').split('\n')) {
    const m = new RegExp(`^(${PREFIX}\\d+)-`).exec(line);
    if (m) ids.add(m[1]);
  }
  for (const line of ip('-o', 'link', 'show', 'type', 'bridge').split('\n')) {
    const m = new RegExp(`^\\d+: (${PREFIX}\\d+)[:@]`).exec(line);
    if (m) ids.add(m[1]);
  }
  const abandoned = [...ids].filter((id) => !runIsAlive(id));
  for (const id of abandoned) removeRun(id);
  return abandoned;
}

/**
 * A /24 in 10.213.0.0/16 chosen by the process id (two runs at once take different ones), a
 * bridge in the root namespace with the driver's address, and one namespace per host with
 * loopback, its veth named eth0 and a hosts file (`ip netns exec` binds /etc/netns/<ns>/hosts
 * over /etc/hosts).
 */
export function createNetwork(): Network {
  const id = `${PREFIX}${process.pid}`;
  const third = process.pid % 250;
  const subnet = `10.213.${third}`;
  const network: Network = {
    id,
    subnet: `${subnet}.0/24`,
    driver: `${subnet}.1`,
    address: (host) => `${subnet}.${HOSTS[host]}`,
    namespace: (host) => `${id}-${host}`,
    cable: (host) => `${id}h${HOSTS[host]}`,
  };
  try {
    ip('link', 'add', id, 'type', 'bridge');
    ip('addr', 'add', `${network.driver}/24`, 'dev', id);
    ip('link', 'set', id, 'up');
    const hostsFile = [
      '127.0.0.1 localhost',
      ...Object.keys(HOSTS).map((h) => `${network.address(h as HostName)} ${HOST_NAMES[h as HostName]}`),
      '',
    ].join('\n');
    for (const host of Object.keys(HOSTS) as HostName[]) {
      const ns = network.namespace(host);
      const cable = network.cable(host);
      ip('netns', 'add', ns);
      ip('link', 'add', cable, 'type', 'veth', 'peer', 'name', `${cable}p`);
      ip('link', 'set', `${cable}p`, 'netns', ns);
      ip('link', 'set', cable, 'master', id, 'up');
      ip('-n', ns, 'link', 'set', `${cable}p`, 'name', 'eth0');
      ip('-n', ns, 'addr', 'add', `${network.address(host)}/24`, 'dev', 'eth0');
      ip('-n', ns, 'link', 'set', 'eth0', 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      fs.mkdirSync(`/etc/netns/${ns}`, { recursive: true });
      fs.writeFileSync(`/etc/netns/${ns}/hosts`, hostsFile);
    }
  } catch (err) {
    removeRun(id);
    throw err;
  }
  return network;
}

/** Kills every process of the run's hosts and removes its namespaces, veths, bridge and hosts files. */
export function teardownNetwork(network: Network): void {
  removeRun(network.id);
}

/** Unplugs (false) or plugs in (true) a host's cable: its connections stall as with a pulled cable. */
export function setCable(network: Network, host: HostName, plugged: boolean): void {
  ip('link', 'set', network.cable(host), plugged ? 'up' : 'down');
}
