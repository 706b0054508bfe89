import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isReachable } from '@earshot/common';

/**
 * A private redis-server on a spare port, so a test can restart Redis without disturbing anyone
 * else's. No persistence, like the machine's own Redis: a restart loses every key.
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-redis-'));
    for (let tries = 0; tries < 20; tries++) {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      if (await isReachable(`redis://127.0.0.1:${port}`, port, 200)) continue;
      const redis = new PrivateRedis(port, dir);
      await redis.up();
      return redis;
    }
    throw new Error('no spare port for a private redis-server');
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    while (!(await isReachable(this.url, this.port, 200))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the server at once (SIGKILL: no chance to save, nothing kept). */
  async down(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.down();
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
