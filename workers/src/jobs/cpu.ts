import { readFileSync } from 'node:fs';

export interface CpuSample {
  /** This process's user+sys CPU, all its threads (libuv pool, libvips, WASM workers). */
  selfMs: number;
  /** User+sys CPU of child processes that have exited (ffmpeg, ffprobe): the kernel adds them on reap. */
  childrenMs: number;
}

const TICK_MS = 10; // USER_HZ is 100 on every Linux Node supports

/**
 * CPU used so far by this process and its finished children. With one job at a time in a process,
 * the difference around a job is that job's CPU: how the worker's core is spent, per stage.
 */
export function cpuNow(): CpuSample {
  const { user, system } = process.cpuUsage();
  return { selfMs: (user + system) / 1000, childrenMs: childrenCpuMs() };
}

export function cpuSince(start: CpuSample): CpuSample {
  const now = cpuNow();
  return { selfMs: now.selfMs - start.selfMs, childrenMs: now.childrenMs - start.childrenMs };
}

let procReadable = process.platform === 'linux';

function childrenCpuMs(): number {
  if (!procReadable) return 0;
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime are fields 16 and 17 of the whole line, 14 and 15 after the name.
    return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
  } catch {
    procReadable = false;
    return 0;
  }
}
