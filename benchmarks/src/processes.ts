// Child processes of a benchmark (the servers and workers it loads) and what /proc says about them.

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The `earshot` command as production runs it: the bin, which runs the compiled CLI with the
 * packages' built files (no TypeScript loader). Under the source condition (a benchmark's test run by
 * vitest, whose NODE_OPTIONS its children inherit) the bin runs the sources instead, as tests do.
 */
export const EARSHOT_BIN = fileURLToPath(new URL('../../cli/bin/earshot.mjs', import.meta.url));

type Started = { child: ChildProcess; match: RegExpExecArray; output: () => string };

/**
 * A `node [nodeFlags] --import tsx <args>` child: a harness role of a benchmark file (TypeScript run
 * through tsx), resolved when its output matches `ready` (the match is returned). With node flags
 * (profiling, tracing) the child's stdout is passed on to stderr.
 */
export function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  nodeFlags: string[] = [],
): Promise<Started> {
  return startNode([...nodeFlags, '--import', 'tsx', ...args], env, ready, nodeFlags.length > 0);
}

/** `earshot <args>` (EARSHOT_BIN, see there) as a child, resolved as `startChild` is. */
export function startEarshot(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  nodeFlags: string[] = [],
): Promise<Started> {
  return startNode([...nodeFlags, EARSHOT_BIN, ...args], env, ready, nodeFlags.length > 0);
}

function startNode(
  nodeArgs: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  passStdout: boolean,
): Promise<Started> {
  const child = spawn(process.execPath, nodeArgs, {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (passStdout) child.stdout?.on('data', (d: Buffer) => process.stderr.write(d));
  let out = '';
  const output = () => out;
  return new Promise((resolve, reject) => {
    const look = (d: Buffer) => {
      // Keep a tail: a long run's log must not grow this process's memory.
      out = (out + d.toString()).slice(-64_000);
      const match = ready.exec(out);
      if (match) resolve({ child, match, output });
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => reject(new Error(`child exited with ${code}:\n${out}`)));
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Resident memory (bytes) and open file descriptors of a live process, from /proc. */
export function processStats(pid: number): { rss: number; fds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rss: kb * 1024, fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

/** A process and every process below it (the workers of `serve --processes N`), from /proc. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue; // it exited
    }
    for (const task of tasks) {
      try {
        const children = fs.readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      } catch {
        // a thread that ended between the listing and the read
      }
    }
  }
  return out;
}

/**
 * CPU time (µs) the threads of these processes have run so far, from the scheduler's per-thread
 * counters (nanoseconds; /proc/<pid>/stat counts 10 ms ticks). Threads that ended are not counted,
 * so read it around a window in which the processes live on.
 */
export function cpuMicros(pids: number[]): number {
  let ns = 0;
  for (const pid of pids) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that ended between the listing and the read
      }
    }
  }
  return ns / 1000;
}

/** Inodes of the sockets a process holds open (its /proc/<pid>/fd links). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed between the listing and the read
    }
  }
  return inodes;
}

/** The machine's TCP sockets by inode (/proc/net/tcp{,6}): local port and state (1 = established). */
function tcpSockets(): Map<string, { localPort: number; state: number }> {
  const sockets = new Map<string, { localPort: number; state: number }>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[] = [];
    try {
      lines = fs.readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (cols.length > 9) {
        sockets.set(cols[9], {
          localPort: Number.parseInt(cols[1].split(':')[1], 16),
          state: Number.parseInt(cols[3], 16),
        });
      }
    }
  }
  return sockets;
}

/**
 * Local TCP ports of the sockets these processes hold open (their /proc/<pid>/fd links matched with
 * /proc/net/tcp{,6} by inode): how a database server's session names its client (`client_port`).
 */
export function localPorts(pids: number[]): Set<number> {
  const sockets = tcpSockets();
  const ports = new Set<number>();
  for (const pid of pids) {
    for (const inode of socketInodes(pid)) {
      const socket = sockets.get(inode);
      if (socket) ports.add(socket.localPort);
    }
  }
  return ports;
}

/**
 * For each process, the established connections it holds on local port `port`: the clients a
 * server process (a cluster worker) is answering.
 */
export function connectionsOn(pids: number[], port: number): number[] {
  const sockets = tcpSockets();
  return pids.map((pid) => {
    let n = 0;
    for (const inode of socketInodes(pid)) {
      const socket = sockets.get(inode);
      if (socket?.state === 1 && socket.localPort === port) n++;
    }
    return n;
  });
}
