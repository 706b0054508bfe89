import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What a run of the `earshot` command left: its exit status and what it printed. */
export interface EarshotRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

const bin = fileURLToPath(new URL('../../bin/earshot.mjs', import.meta.url));

/** Runs the `earshot` command as a user would, in a process of its own, with `env` over this one's. */
export function runEarshot(env: Record<string, string>, ...args: string[]): Promise<EarshotRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}
