// wrk (Debian's package, 4.1) as a load generator for the benchmarks whose server shares the
// machine's two cores with it (issue 18, `serve --processes 2`): native code on epoll, a fraction of
// the lean generator's CPU per request, so more of the cores go to the servers measured. Requests
// go over the same distinct paths with the same headers (wrk-paths.lua); wrk's own CPU per answer
// comes from /proc, read by the script when wrk has finished.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LeanLoadOptions, LeanLoadResult } from './lean-load.ts';

const SCRIPT = fileURLToPath(new URL('./wrk-paths.lua', import.meta.url));

export interface WrkLoadOptions extends LeanLoadOptions {
  /** wrk's threads (each an event loop over its share of the connections); 1 unless told. */
  threads?: number;
}

/** The `wrk` executable on PATH, or null. */
export function findWrk(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'wrk');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not in this folder
    }
  }
  return null;
}

export const WRK_MISSING =
  "wrk is not installed: the `--load wrk` generator runs Debian's package `wrk` (`apt-get install wrk`, as .ci/run does); or choose `--load lean`";

/** What wrk-paths.lua's done() printed: `EARSHOT_WRK key=value …`, integers. */
export function parseWrkSummary(output: string): Record<string, number> {
  const line = /^EARSHOT_WRK (.*)$/m.exec(output);
  if (!line) throw new Error(`wrk printed no summary line:\n${output.slice(-2000)}`);
  const fields: Record<string, number> = {};
  for (const pair of line[1].trim().split(/\s+/)) {
    const [key, value] = pair.split('=');
    const n = Number(value);
    if (!key || !Number.isFinite(n)) throw new Error(`wrk's summary line could not be read: ${line[0]}`);
    fields[key] = n;
  }
  return fields;
}

let ticksPerSecond: number | undefined;
/** The clock ticks /proc/<pid>/stat counts CPU time in (USER_HZ). */
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  return ticksPerSecond;
}

/**
 * wrk with `connections` keep-alive connections for `durationS` seconds (whole seconds, as wrk
 * takes them), one request in flight per connection. Non-2xx answers are counted as wrk counts
 * them: statuses from 400 on (its `errors.status`).
 */
export async function wrkLoad(options: WrkLoadOptions): Promise<LeanLoadResult> {
  const wrk = findWrk();
  if (!wrk) throw new Error(WRK_MISSING);
  const threads = Math.min(options.threads ?? 1, options.connections);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-wrk-'));
  const pathsFile = path.join(dir, 'paths');
  fs.writeFileSync(pathsFile, `${options.paths.join('\n')}\n`);
  const args = [
    '-t',
    String(threads),
    '-c',
    String(options.connections),
    '-d',
    `${Math.max(1, Math.round(options.durationS))}s`,
    '--timeout',
    '10s',
    '-s',
    SCRIPT,
  ];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}: ${v}`);
  // wrk takes a URL; the script's paths replace its path.
  args.push(`${options.origin}/`, '--', pathsFile);
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(wrk, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        code === 0
          ? resolve(out)
          : reject(new Error(`wrk exited with ${signal ?? code}:\n${out.slice(-2000)}`)),
      );
    });
    const s = parseWrkSummary(output);
    const seconds = s.duration_us / 1e6;
    return {
      total: s.requests,
      rps: seconds > 0 ? s.requests / seconds : 0,
      // ms with two decimals: a loopback answer's median can be well under 0.1 ms.
      p50: Math.round(s.p50_us / 10) / 100,
      p99: Math.round(s.p99_us / 10) / 100,
      non2xx: s.status,
      errors: s.connect + s.read + s.write + s.timeout,
      cpuUsPerRequest: s.requests ? ((s.cpu_ticks / clockTicks()) * 1e6) / s.requests : 0,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
