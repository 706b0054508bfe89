// What runs on each rehearsal host: PostgreSQL (a cluster of its own in a temporary folder, Debian's
// binaries, as user postgres), Redis, the API hosts and worker hosts (`deploy/run <kind>` with the
// environment files of deploy/env), and haproxy with deploy/haproxy/haproxy.cfg.

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HostName, killNamespace, type Network } from './network.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const DEPLOY_DIR = path.join(REPO, 'deploy');
export const LB_PORT = 8080;

export interface HostProcess {
  host: HostName;
  child: ChildProcess;
  /** The last 64 kB of what it printed. */
  output(): string;
}

/** A command inside a host's namespace, its output kept (a tail), its own process group. */
export function runOnHost(
  network: Network,
  host: HostName,
  command: string[],
  env: NodeJS.ProcessEnv,
  cwd = REPO,
): HostProcess {
  const inNamespace = ['ip', 'netns', 'exec', network.namespace(host), ...command];
  const [file, ...args] = network.inCpuGroup?.(host, inNamespace) ?? inNamespace;
  const child = spawn(file, args, {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-64_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('error', keep.bind(null, Buffer.from('spawn failed\n')));
  return { host, child, output: () => out };
}

/** `KEY=value` lines of an environment file (systemd's EnvironmentFile, docker's --env-file). */
export function readEnvFile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/**
 * The environment of an earshot host: nothing of the rehearsal's own (as systemd starts a unit),
 * deploy/env/common.env and the kind's file, then the rehearsal's few overrides (the shared
 * folder's path, plain http at the balancer).
 */
export function hostEnv(kind: 'api' | 'worker', overrides: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    ...readEnvFile(path.join(DEPLOY_DIR, 'env', 'common.env')),
    ...readEnvFile(path.join(DEPLOY_DIR, 'env', `${kind}.env`)),
    ...overrides,
  };
}

/** Starts an earshot host exactly as the systemd unit does: `deploy/run <kind>`. */
export function startEarshotHost(
  network: Network,
  host: HostName,
  kind: 'api' | 'worker',
  overrides: Record<string, string>,
): HostProcess {
  return runOnHost(network, host, [path.join(DEPLOY_DIR, 'run'), kind], hostEnv(kind, overrides));
}

/** A one-off `earshot <args>` on a host, with the API hosts' environment (e.g. `index snapshot`). */
export function startEarshotHostCommand(
  network: Network,
  host: HostName,
  args: string[],
  overrides: Record<string, string>,
): HostProcess {
  return runOnHost(
    network,
    host,
    ['node', path.join(REPO, 'cli', 'bin', 'earshot.mjs'), ...args],
    hostEnv('api', overrides),
  );
}

/** Debian's PostgreSQL binaries (the newest installed major version). */
function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  return path.join(base, versions[0], 'bin');
}

/**
 * A PostgreSQL cluster of its own in `dir` (owned by user postgres, trust authentication on the
 * rehearsal's network), listening on the db host's address only.
 */
export function startPostgres(network: Network, dir: string): HostProcess {
  const bin = postgresBin();
  const data = path.join(dir, 'pgdata');
  fs.mkdirSync(data, { recursive: true });
  execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  fs.chmodSync(data, 0o700);
  execFileSync(
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      path.join(bin, 'initdb'),
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
    ],
    { stdio: 'ignore' },
  );
  fs.appendFileSync(path.join(data, 'pg_hba.conf'), `host all all ${network.subnet} trust\n`);
  return runOnHost(
    network,
    'db',
    [
      'runuser',
      '-u',
      'postgres',
      '--',
      path.join(bin, 'postgres'),
      '-D',
      data,
      '-c',
      `listen_addresses=${network.address('db')}`,
      '-c',
      'port=5432',
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=128MB',
    ],
    process.env,
    dir,
  );
}

export function startRedis(network: Network, dir: string): HostProcess {
  return runOnHost(
    network,
    'redis',
    [
      'redis-server',
      '--bind',
      network.address('redis'),
      '--port',
      '6379',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'no',
      '--dir',
      dir,
    ],
    process.env,
    dir,
  );
}

/** haproxy installed from Debian's packages when it is not yet (as .ci/run installs what tests need). */
export function ensureHaproxy(say: (line: string) => void): void {
  if (spawnSync('sh', ['-c', 'command -v haproxy'], { stdio: 'ignore' }).status === 0) return;
  say('installing haproxy (apt-get install haproxy)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'haproxy'], {
    stdio: 'ignore',
    env,
  });
}

/**
 * deploy/haproxy/haproxy.cfg with its public `bind` line replaced by a plain-http one on the
 * balancer's address (the rehearsal has no certificate), and a local stats socket so that the
 * rehearsal can take a host out of rotation for the one-host throughput phase.
 */
export function haproxyConfig(network: Network, dir: string): string {
  const source = fs.readFileSync(path.join(DEPLOY_DIR, 'haproxy', 'haproxy.cfg'), 'utf8');
  const bind = /^\s*bind .*$/m;
  if (!bind.test(source)) throw new Error('deploy/haproxy/haproxy.cfg has no bind line');
  const socket = path.join(dir, 'haproxy.sock');
  const text = source
    .replace(bind, `    bind ${network.address('lb')}:${LB_PORT}`)
    .replace(/^global\s*$/m, `global\n    stats socket ${socket} mode 600 level admin`);
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, text);
  return file;
}

export function startHaproxy(network: Network, config: string): HostProcess {
  return runOnHost(network, 'lb', ['haproxy', '-db', '-f', config], process.env, path.dirname(config));
}

/** A command on haproxy's admin socket (e.g. `disable server api/api2`). */
export async function haproxyCommand(socketPath: string, command: string): Promise<string> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let out = '';
    socket.on('data', (d) => {
      out += d.toString();
    });
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.end(`${command}\n`);
  });
}

/** kill -9 every process of a host (its namespace): what a power cut does to it. */
export function killHost(network: Network, host: HostName): number {
  return killNamespace(network.namespace(host));
}

/** Resolves once `probe` is true (checked every 250 ms), or rejects after `timeoutMs` with `what`. */
export async function waitFor(
  what: string,
  timeoutMs: number,
  probe: () => Promise<boolean>,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
