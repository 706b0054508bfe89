// The API server's event loop as a bench sees it: how late its timers ran (delay) and how long
// the main isolate's garbage collector paused it, between two readings. The server child installs
// the monitor; the parent asks for a reading with SIGUSR2 and gets it as a JSON line on stdout.
import type { ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { Interface } from 'node:readline';

export interface LoopReading {
  /** Event-loop delay (ms beyond the 10 ms sampling timer): median, 99th percentile, worst. */
  delayP50: number;
  delayP99: number;
  delayMax: number;
  /** Main-isolate GC pauses: how many, their sum and the longest (ms). */
  gcPauses: number;
  gcMs: number;
  gcMaxMs: number;
}

const RESOLUTION_MS = 10;
/** How late the monitor's timer ran: its histogram holds whole intervals, the timer's own included. */
const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

/** In the server child: answers each SIGUSR2 with a reading since the previous one. */
export function installLoopMonitor(): void {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let gc = { n: 0, ms: 0, max: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.n++;
      gc.ms += entry.duration;
      gc.max = Math.max(gc.max, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    const reading: LoopReading = {
      delayP50: late(delay.percentile(50)),
      delayP99: late(delay.percentile(99)),
      delayMax: late(delay.max),
      gcPauses: gc.n,
      gcMs: gc.ms,
      gcMaxMs: gc.max,
    };
    process.stdout.write(`${JSON.stringify({ loop: reading })}\n`);
    delay.reset();
    gc = { n: 0, ms: 0, max: 0 };
  });
}

/** In the parent: a reading of the child's loop since the previous call (or since it started). */
export function readLoop(child: ChildProcess, lines: Interface): Promise<LoopReading> {
  return new Promise((resolve) => {
    const onLine = (line: string) => {
      const parsed = JSON.parse(line) as { loop?: LoopReading };
      if (!parsed.loop) return;
      lines.off('line', onLine);
      resolve(parsed.loop);
    };
    lines.on('line', onLine);
    child.kill('SIGUSR2');
  });
}
