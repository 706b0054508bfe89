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

/** Event-loop delay and GC pauses of this thread's isolate, read (and reset) by `read()`. */
export class LoopMonitor {
  private readonly delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private gc = { n: 0, ms: 0, max: 0 };

  constructor() {
    this.delay.enable();
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        this.gc.n++;
        this.gc.ms += entry.duration;
        this.gc.max = Math.max(this.gc.max, entry.duration);
      }
    }).observe({ entryTypes: ['gc'] });
  }

  read(): LoopReading {
    const reading: LoopReading = {
      delayP50: late(this.delay.percentile(50)),
      delayP99: late(this.delay.percentile(99)),
      delayMax: late(this.delay.max),
      gcPauses: this.gc.n,
      gcMs: this.gc.ms,
      gcMaxMs: this.gc.max,
    };
    this.delay.reset();
    this.gc = { n: 0, ms: 0, max: 0 };
    return reading;
  }
}

/** In the server child: answers each SIGUSR2 with a reading since the previous one. */
export function installLoopMonitor(): void {
  const monitor = new LoopMonitor();
  process.on('SIGUSR2', () => process.stdout.write(`${JSON.stringify({ loop: monitor.read() })}\n`));
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
