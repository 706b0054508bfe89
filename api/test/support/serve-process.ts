import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';

/** `earshot serve` started by path (the API never imports the workers; the command wires them). */
const CLI_MAIN = fileURLToPath(new URL('../../../cli/src/main.ts', import.meta.url));

export interface ServeProcess {
  origin: string;
  dataDir: string;
  /** The server's embedded catalogue, joined through the server (as `npx earshot …` commands do). */
  catalogue: Catalogue;
  /** What the process printed so far (for failure messages). */
  output: () => string;
  stop: () => Promise<void>;
  /** The server's process id. */
  pid: number;
  /** SIGTERM, and how the process ended: its exit code and the milliseconds it took to exit. */
  terminate: () => Promise<{ code: number | null; ms: number }>;
}

/**
 * The whole service as `npm start` runs it, in a child process: HTTP API, embedded catalogue and
 * the in-process pipeline (no Redis), on a fresh data folder without the demo import. For
 * black-box tests that need the real pipeline behind the API.
 */
export async function startServeProcess(env: Record<string, string> = {}): Promise<ServeProcess> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-serve-test-'));
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    DEMO_IMPORT: 'false',
    OAUTH2_HTTPS_ONLY: 'false',
    LOG_LEVEL: 'warn',
    ...env,
  };
  delete childEnv.REDIS_URL;
  delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, 'serve'], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`earshot serve did not start:\n${out}`)), 240_000);
    const look = () => {
      const match = /is serving on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`earshot serve exited with ${code}:\n${out}`));
    });
  });
  const catalogue = await openCatalogue({
    config: { dataDir },
    logger: createLogger('silent'),
    role: 'command',
    description: 'serve-process test',
  });
  let joined = true;
  const leave = async () => {
    if (joined) await catalogue.close();
    joined = false;
  };
  return {
    origin,
    dataDir,
    catalogue,
    output: () => out,
    pid: child.pid ?? 0,
    terminate: async () => {
      await leave();
      const started = Date.now();
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const code = await exited;
      return { code, ms: Date.now() - started };
    },
    stop: async () => {
      await leave();
      await stopChild(child);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
