import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/earshot.mjs', import.meta.url));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-cli-serve-'));
const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(work, { recursive: true, force: true });
});

/** Starts `earshot serve` on a free port; resolves once it printed its banner. */
function serve(
  extra: Record<string, string>,
): Promise<{ child: ChildProcess; stdout: string; origin: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: '', ...extra };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [bin, 'serve'], { env });
  running.push(child);
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c;
    });
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c;
      const origin = /is serving on (http:\/\/\S+)/.exec(stdout)?.[1];
      // The banner is one write ending with an empty line.
      if (origin && stdout.includes('Try it:') && stdout.endsWith('\n')) resolve({ child, stdout, origin });
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('earshot serve and the demo account', () => {
  it('with DEMO_IMPORT=0 creates and prints no demo user or key', async () => {
    const dataDir = path.join(work, 'plain');
    const { child, stdout } = await serve({ DATA_DIR: dataDir, DEMO_IMPORT: '0' });
    await stop(child);
    expect(stdout).not.toMatch(/demo/i);
    expect(stdout).not.toMatch(/API key [A-Za-z0-9]{40}/);
    // No demo user exists either: ask the API with a key of another user's.
    const made = spawnSync(
      process.execPath,
      [bin, 'credentials', 'create', '--user', 'ann', '--name', 'a', '--json'],
      {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' },
        encoding: 'utf8',
      },
    );
    expect(made.status, made.stderr).toBe(0);
    const key = (JSON.parse(made.stdout) as { client_secret: string }).client_secret;
    const { child: again, stdout: later, origin } = await serve({ DATA_DIR: dataDir, DEMO_IMPORT: '0' });
    try {
      expect(later).not.toMatch(/demo/i);
      expect((await fetch(`${origin}/apiv2/users/ann/?token=${key}`)).status).toBe(200);
      expect((await fetch(`${origin}/apiv2/users/demo/?token=${key}`)).status).toBe(404);
    } finally {
      await stop(again);
    }
  }, 120_000);

  it('prints the demo key in full when it creates it, and that key works', async () => {
    const dataDir = path.join(work, 'demo');
    const { child, stdout, origin } = await serve({ DATA_DIR: dataDir, DEMO_IMPORT: '1' });
    try {
      const key = /Created the demo user "demo" with API key ([A-Za-z0-9]{40})/.exec(stdout)?.[1];
      expect(key, stdout).toBeDefined();
      const res = await fetch(`${origin}/apiv2/users/demo/`, { headers: { Authorization: `Token ${key}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { username: string }).username).toBe('demo');
    } finally {
      await stop(child);
    }
  }, 120_000);
});
