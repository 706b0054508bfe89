// What a restarted API host does until it is ready, step by step: /ready asked every 100 ms on a
// fresh connection (which the host's cluster deals to its processes in turn, each naming itself in
// X-Earshot-Pid), the host's CPU time and quota waits at each step, and its own log lines about
// the similarity state, all on one clock from the restart.

import type { Readable } from 'node:stream';

export interface TimelineStep {
  /** Seconds since the restart. */
  t: number;
  what: string;
  /** CPU seconds the host had used by then, and seconds it had waited on its quota. */
  cpuS: number;
  throttledS: number;
}

export interface RestartTimeline {
  /** Seconds from the restart to two ready answers in a row (both processes). */
  readyS: number;
  steps: TimelineStep[];
  /**
   * Per process, what it was doing at each 100 ms poll until ready (/proc/<pid>/stat's state):
   * running or waiting for a CPU (R), sleeping on the network, a timer or a child (S), on the disk (D).
   */
  states: { pid: number; samples: number; R: number; S: number; D: number }[];
}

interface Probe {
  /** CPU and quota-wait seconds of the host since it was made (its group). */
  cpu: () => { cpuS: number; throttledS: number };
  /** The host's log (pino's JSON lines on stderr), read from the restart on. */
  log: Readable | null;
  /** The host's output so far, shown when it exits. */
  output: () => string;
  exited: () => boolean;
  /** The host's processes now: id, command line and scheduler state (R, S, D, …). */
  processes: () => { pid: number; command: string; state: string }[];
}

const LOG_STEPS = [
  'similarity index loaded from its snapshot',
  'similarity state loaded',
  'no similarity snapshot; building the index',
  'similarity snapshot not usable; rebuilding the index from the catalogue',
];

/** Polls `origin`'s /ready from `restartAt` until two answers in a row are 200, recording each change. */
export async function followRestart(
  origin: string,
  restartAt: number,
  probe: Probe,
  timeoutMs: number,
): Promise<RestartTimeline> {
  const base = probe.cpu();
  // Kept apart from the output's tail, which the not-ready answers' warnings would push them out of.
  const logLines: string[] = [];
  let partial = '';
  const onLog = (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    logLines.push(...lines.filter((line) => LOG_STEPS.some((step) => line.includes(step))));
  };
  probe.log?.on('data', onLog);
  const steps: TimelineStep[] = [];
  const note = (what: string, at = Date.now()) => {
    const now = probe.cpu();
    steps.push({
      t: Math.round((at - restartAt) / 100) / 10,
      what,
      cpuS: Math.round((now.cpuS - base.cpuS) * 10) / 10,
      throttledS: Math.round((now.throttledS - base.throttledS) * 10) / 10,
    });
  };
  const lastState = new Map<string, string>();
  const seen = new Set<number>();
  const states = new Map<number, { pid: number; samples: number; R: number; S: number; D: number }>();
  let okInRow = 0;
  let readyS = 0;
  while (okInRow < 2) {
    if (Date.now() - restartAt > timeoutMs)
      throw new Error(`the restarted API host not ready within ${timeoutMs / 1000} s`);
    if (probe.exited()) throw new Error(`the restarted API host exited:\n${probe.output().slice(-2000)}`);
    for (const p of probe.processes()) {
      const s = states.get(p.pid) ?? { pid: p.pid, samples: 0, R: 0, S: 0, D: 0 };
      states.set(p.pid, s);
      s.samples++;
      if (p.state === 'R' || p.state === 'S' || p.state === 'D') s[p.state]++;
      if (seen.has(p.pid)) continue;
      seen.add(p.pid);
      note(`process ${p.pid} runs (${p.command})`);
    }
    let state: string;
    let pid = '?';
    try {
      const res = await fetch(`${origin}/ready`, {
        headers: { Connection: 'close' },
        signal: AbortSignal.timeout(5000),
      });
      pid = res.headers.get('x-earshot-pid') ?? '?';
      const body = (await res.json().catch(() => ({}))) as { checks?: Record<string, string> };
      const checks = Object.entries(body.checks ?? {})
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      state = `${res.status} (${checks})`;
      okInRow = res.status === 200 ? okInRow + 1 : 0;
    } catch (err) {
      state = `no answer (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name})`;
      okInRow = 0;
    }
    if (lastState.get(pid) !== state) {
      lastState.set(pid, state);
      note(pid === '?' ? state : `process ${pid}: ${state}`);
    }
    if (okInRow === 2) readyS = (Date.now() - restartAt) / 1000;
    else await new Promise((r) => setTimeout(r, 100));
  }
  note('ready (two answers in a row)');
  probe.log?.off('data', onLog);
  for (const line of logLines) {
    try {
      const entry = JSON.parse(line) as { msg?: string; time?: number; pid?: number; ms?: number };
      if (entry.msg && entry.time && entry.time >= restartAt && LOG_STEPS.includes(entry.msg)) {
        steps.push({
          t: Math.round((entry.time - restartAt) / 100) / 10,
          what: `process ${entry.pid} logs "${entry.msg}"${entry.ms === undefined ? '' : ` (${entry.ms} ms)`}`,
          cpuS: Number.NaN,
          throttledS: Number.NaN,
        });
      }
    } catch {
      // not a log line
    }
  }
  steps.sort((a, b) => a.t - b.t);
  return { readyS, steps, states: [...states.values()] };
}

/** The timeline as one line per step, then each process's states, for the report. */
export function describeTimeline(timeline: RestartTimeline): string[] {
  const pct = (n: number, of: number) => `${Math.round((100 * n) / Math.max(1, of))} %`;
  return [
    ...timeline.steps.map(
      (s) =>
        `t=${s.t.toFixed(1)} s: ${s.what}${Number.isNaN(s.cpuS) ? '' : ` [${s.cpuS} CPU-s, ${s.throttledS} s waiting on the quota]`}`,
    ),
    ...timeline.states.map(
      (s) =>
        `process ${s.pid} over ${s.samples} polls: running or waiting for a CPU ${pct(s.R, s.samples)}, sleeping (network, timers) ${pct(s.S, s.samples)}, disk ${pct(s.D, s.samples)}`,
    ),
  ];
}
