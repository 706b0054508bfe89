// Where the machine's CPU goes during a load, from /proc (Linux only): the API server's threads one
// by one (its event loop, the clip threads, libuv's pool, V8's helpers), this process (the load
// generator's clients) and everything else on the machine (other people's work on a shared box).
// Read before and after a row; the difference says who paid for the row's answers.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a /proc stat line, in milliseconds. */
function statMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

export interface CpuReading {
  /** CPU ms by thread id of the server process, with the thread's name. */
  threads: Map<number, { name: string; ms: number }>;
  /** CPU ms of this process (all its threads). */
  selfMs: number;
  /** Busy and total CPU ms of the whole machine (all cores). */
  machineBusyMs: number;
  machineTotalMs: number;
  at: number;
}

function serverThreads(pid: number): Map<number, { name: string; ms: number }> {
  const threads = new Map<number, { name: string; ms: number }>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      threads.set(Number(tid), { name, ms: statMs(stat) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

function machine(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = ticks[3] + ticks[4];
  return { busy: ((total - idle) * 1000) / clockTicks, total: (total * 1000) / clockTicks };
}

export function readCpu(serverPid: number): CpuReading {
  const usage = process.cpuUsage();
  const m = machine();
  return {
    threads: serverThreads(serverPid),
    selfMs: (usage.user + usage.system) / 1000,
    machineBusyMs: m.busy,
    machineTotalMs: m.total,
    at: performance.now(),
  };
}

export interface CpuSplit {
  seconds: number;
  /** The server's main thread (its event loop). */
  eventLoopMs: number;
  /** The server's threads that spent the most besides the event loop, by name (largest first). */
  busiestThreads: Array<{ name: string; ms: number }>;
  /** All the server's other threads together. */
  otherServerThreadsMs: number;
  serverMs: number;
  selfMs: number;
  machineBusyMs: number;
  machineTotalMs: number;
}

/** CPU ms spent between two readings; `busiest` threads besides the event loop are named. */
export function cpuSplit(serverPid: number, before: CpuReading, after: CpuReading, busiest = 2): CpuSplit {
  const spent: Array<{ tid: number; name: string; ms: number }> = [];
  for (const [tid, now] of after.threads) {
    const then = before.threads.get(tid)?.ms ?? 0;
    spent.push({ tid, name: now.name, ms: now.ms - then });
  }
  const eventLoopMs = spent.find((t) => t.tid === serverPid)?.ms ?? 0;
  const others = spent.filter((t) => t.tid !== serverPid).sort((a, b) => b.ms - a.ms);
  const top = others.slice(0, busiest);
  const rest = others.slice(busiest).reduce((a, t) => a + t.ms, 0);
  return {
    seconds: (after.at - before.at) / 1000,
    eventLoopMs,
    busiestThreads: top.map((t) => ({ name: t.name, ms: t.ms })),
    otherServerThreadsMs: rest,
    serverMs: spent.reduce((a, t) => a + t.ms, 0),
    selfMs: after.selfMs - before.selfMs,
    machineBusyMs: after.machineBusyMs - before.machineBusyMs,
    machineTotalMs: after.machineTotalMs - before.machineTotalMs,
  };
}

/**
 * The rows' CPU as a markdown table: per second of the row (in cores) and, for the clip row, per
 * clip answered after taking off what the other traffic cost alone (the `baseline` row's rate).
 */
export function cpuTable(baseline: CpuSplit, busy: CpuSplit, clips: number): string {
  const rate = (split: CpuSplit, ms: number) => ms / 1000 / split.seconds;
  const perClip = (busyMs: number, baselineMs: number) =>
    clips > 0 ? (busyMs - rate(baseline, baselineMs) * 1000 * busy.seconds) / clips : Number.NaN;
  const rows: Array<[string, number, number, number]> = [
    ['API event loop (main thread)', baseline.eventLoopMs, busy.eventLoopMs, 0],
    ...busy.busiestThreads.map(
      (t, i) =>
        [`API thread "${t.name}" (busiest ${i + 2})`, Number.NaN, t.ms, Number.NaN] as [
          string,
          number,
          number,
          number,
        ],
    ),
    ['API: its other threads (libuv pool, GC helpers)', Number.NaN, busy.otherServerThreadsMs, Number.NaN],
    ['API process in all', baseline.serverMs, busy.serverMs, 0],
    ['bench process (the load generator: fetch clients, autocannon)', baseline.selfMs, busy.selfMs, 0],
    [
      'everything else on the machine (other work)',
      baseline.machineBusyMs - baseline.serverMs - baseline.selfMs,
      busy.machineBusyMs - busy.serverMs - busy.selfMs,
      Number.NaN,
    ],
    ['whole machine busy', baseline.machineBusyMs, busy.machineBusyMs, Number.NaN],
  ];
  const cores = (split: CpuSplit, ms: number) => (Number.isNaN(ms) ? '—' : rate(split, ms).toFixed(2));
  return [
    `| CPU (cores busy; ${(baseline.machineTotalMs / 1000 / baseline.seconds).toFixed(0)} in the machine) | other requests alone | with the clip clients | ms per clip (less the other requests' share) |`,
    '|---|---:|---:|---:|',
    ...rows.map(([name, base, load, mode]) => {
      const per =
        mode === 0
          ? perClip(load, base)
          : name.startsWith('API thread')
            ? clips > 0
              ? load / clips
              : Number.NaN
            : Number.NaN;
      return `| ${name} | ${cores(baseline, base)} | ${cores(busy, load)} | ${Number.isNaN(per) ? '—' : per.toFixed(1)} |`;
    }),
  ].join('\n');
}
