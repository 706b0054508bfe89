import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Child {
  process: ChildProcess;
  /** Everything the child printed on stdout so far. */
  output(): string;
  /** Everything the child printed on stderr so far (its logs). */
  errors(): string;
  /** Resolves when stdout contains `text`. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** Starts a TypeScript module in a new Node process (through tsx), as a separate worker would run. */
export function startChild(module: URL, args: string[], env: NodeJS.ProcessEnv = {}): Child {
  // Children report on stdout; their logs (stderr) are kept for error messages only.
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(module), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    output: () => out,
    errors: () => err,
    exited,
    waitForOutput: async (text, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!out.includes(text)) {
        if (child.exitCode !== null)
          throw new Error(`child exited (${child.exitCode}) before printing "${text}":\n${err}`);
        if (Date.now() > deadline)
          throw new Error(`child did not print "${text}" in ${timeoutMs} ms:\n${out}\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}
