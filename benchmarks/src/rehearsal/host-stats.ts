// CPU time and memory of a rehearsal host's processes, from /proc (every process of its namespace).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { namespacePids } from './network.ts';

let ticks: number | undefined;
/** The clock ticks /proc counts CPU time in (USER_HZ). */
export function clockTicks(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  return ticks;
}

/** CPU seconds of one process so far, its waited-for children (ffmpeg runs) included. */
function processCpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14-17 of stat, 12-15 after the name.
    const sum = [11, 12, 13, 14].reduce((a, i) => a + Number(fields[i]), 0);
    return sum / clockTicks();
  } catch {
    return 0; // exited meanwhile
  }
}

/** CPU seconds the processes of a namespace have used (those alive now, their reaped children included). */
export function namespaceCpuSeconds(namespace: string): number {
  return namespacePids(namespace).reduce((a, pid) => a + processCpuSeconds(pid), 0);
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The processes of a namespace with their command lines (relative to the repository, the first 80 characters) and scheduler states. */
export function namespaceProcesses(namespace: string): { pid: number; command: string; state: string }[] {
  return namespacePids(namespace).flatMap((pid) => {
    try {
      const command = fs
        .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .join(' ')
        .trim()
        .replaceAll(REPO, '');
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return [{ pid, command: command.slice(0, 80), state }];
    } catch {
      return []; // exited meanwhile
    }
  });
}

/** Resident memory (MB) of each node process of a namespace. */
export function nodeRssMb(namespace: string): number[] {
  const out: number[] = [];
  for (const pid of namespacePids(namespace)) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      if (!/^Name:\s+node/m.test(status)) continue;
      out.push(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * A host's CPU over restarts: `sample()` every few seconds keeps the last reading of the current
 * processes; `restarted()` (after a kill) banks it, since the new processes count from zero.
 */
export class HostCpu {
  private banked = 0;
  private last = 0;

  constructor(private readonly namespace: string) {}

  sample(): number {
    this.last = namespaceCpuSeconds(this.namespace);
    return this.total();
  }

  restarted(): void {
    this.banked += this.last;
    this.last = 0;
  }

  total(): number {
    return this.banked + this.last;
  }
}
