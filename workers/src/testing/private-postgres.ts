import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isReachable } from '@earshot/common';
import pg from 'pg';

/** The newest PostgreSQL server binaries installed (Debian's layout), or undefined. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions
    .map((v) => path.join(root, v, 'bin'))
    .find((bin) => fs.existsSync(path.join(bin, 'initdb')));
}

/** initdb and postgres refuse to run as root: as root, they run as the `postgres` account. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * A PostgreSQL server of the test's own (initdb in a temporary folder, a spare port, trust
 * authentication on loopback), so that a test can kill and restart the database server without
 * touching the machine's shared one that every other test uses.
 */
export class PrivatePostgres {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  /** Undefined when no server binaries are installed. */
  static available(): boolean {
    return postgresBin() !== undefined;
  }

  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBin();
    if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-pg-'));
    fs.chmodSync(dir, 0o777);
    const [cmd, args] = asServerUser(path.join(bin, 'initdb'), [
      '-D',
      path.join(dir, 'data'),
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
    for (let tries = 0; tries < 20; tries++) {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      if (await isReachable(`postgres://127.0.0.1:${port}`, port, 200)) continue;
      const server = new PrivatePostgres(port, dir, bin);
      await server.up();
      return server;
    }
    throw new Error('no spare port for a private PostgreSQL server');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async up(): Promise<void> {
    const [cmd, args] = asServerUser(path.join(this.bin, 'postgres'), [
      '-D',
      path.join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${this.dir}`,
      '-c',
      'fsync=off',
    ]);
    this.child = spawn(cmd, args, { stdio: 'ignore' });
    // The port opens before the server takes sessions ("the database system is starting up"):
    // ready is when a statement runs.
    const deadline = Date.now() + 30_000;
    while (!(await this.answers())) {
      if (Date.now() > deadline) throw new Error(`postgres did not start on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async answers(): Promise<boolean> {
    if (!(await isReachable(this.url(), this.port, 200))) return false;
    const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  }

  /** Kills the server at once (SIGKILL of the postmaster and its backends: crash recovery on the next start). */
  async down(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // runuser forwards no SIGKILL: kill the postmaster (its pid is in the data folder), then runuser ends.
    const pidFile = path.join(this.dir, 'data', 'postmaster.pid');
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    await exited;
    // Orphaned backends notice the dead postmaster and quit; wait until the port is free.
    const deadline = Date.now() + 10_000;
    while (await isReachable(this.url(), this.port, 200)) {
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    await this.down();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
