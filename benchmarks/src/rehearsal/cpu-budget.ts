// CPU budgets of the rehearsal's hosts: one cgroup per host (cgroup v2 with cpu.max, or cgroup v1's
// cpu and cpuacct hierarchies), so that an API host gets a CPU quota of its own as a machine of its
// own would, instead of the whole machine shared with the other "hosts", and each part's CPU time
// (killed and reaped processes included) is read from its group rather than guessed from /proc.

import fs from 'node:fs';
import path from 'node:path';
import { clockTicks } from './host-stats.ts';

const ROOT = '/sys/fs/cgroup';
// A short period: a host that spends its quota early waits at most 10 ms, not 100 ms, as no real machine would.
const PERIOD_US = 10_000;
const PREFIX = 'earshot-rehearsal-';

type Layout = { kind: 'v2'; dir: string } | { kind: 'v1'; cpu: string; cpuacct: string };

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where CPU groups can be made here, or null (no cgroup file system, or not writable). */
function layout(): Layout | null {
  const v2 = path.join(ROOT, 'cgroup.controllers');
  if (fs.existsSync(v2)) {
    const controllers = fs.readFileSync(v2, 'utf8').split(/\s+/);
    return controllers.includes('cpu') && writable(ROOT) ? { kind: 'v2', dir: ROOT } : null;
  }
  // v1: `cpu` and `cpuacct` are one hierarchy on most systems (symlinks to `cpu,cpuacct`), two here and there.
  const cpu = path.join(ROOT, 'cpu');
  const cpuacct = path.join(ROOT, 'cpuacct');
  if (
    !fs.existsSync(path.join(cpu, 'cpu.cfs_quota_us')) ||
    !fs.existsSync(path.join(cpuacct, 'cpuacct.usage'))
  )
    return null;
  return writable(cpu) && writable(cpuacct)
    ? { kind: 'v1', cpu: fs.realpathSync(cpu), cpuacct: fs.realpathSync(cpuacct) }
    : null;
}

/** Whether CPU budgets can be given here, with the reason when not. */
export function cpuBudgetsPossible(): { ok: true; kind: 'v1' | 'v2' } | { ok: false; reason: string } {
  const l = layout();
  return l
    ? { ok: true, kind: l.kind }
    : { ok: false, reason: `no writable cgroup with the cpu controller under ${ROOT}` };
}

/** The hierarchies' folders (one for v2 and for a joint v1 cpu,cpuacct; two otherwise). */
function hierarchies(l: Layout): string[] {
  return l.kind === 'v2' ? [l.dir] : [...new Set([l.cpu, l.cpuacct])];
}

function removeTree(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeTree(path.join(dir, entry.name));
  }
  try {
    fs.rmdirSync(dir);
  } catch {
    // processes still in it (a run killed before its teardown): the next run retries
  }
}

/** Removes the groups of earlier runs for which `alive(runId)` is false. */
export function removeAbandonedGroups(alive: (runId: string) => boolean): string[] {
  const l = layout();
  if (!l) return [];
  const removed: string[] = [];
  for (const root of hierarchies(l)) {
    for (const name of fs.readdirSync(root)) {
      if (!name.startsWith(PREFIX) || alive(name.slice(PREFIX.length))) continue;
      removeTree(path.join(root, name));
      removed.push(name);
    }
  }
  return removed;
}

/**
 * One run's groups, one per name (a host, or the load generator), under `earshot-rehearsal-<runId>`.
 * A process enters its group before it runs its command (`command()`), so that everything it starts
 * is in the group too.
 */
export class CpuGroups {
  private readonly layout: Layout;
  private readonly parents: string[];

  constructor(
    runId: string,
    private readonly names: readonly string[],
  ) {
    const l = layout();
    if (!l) throw new Error(`CPU budgets: ${ROOT} has no writable cpu controller`);
    this.layout = l;
    this.parents = hierarchies(l).map((root) => path.join(root, `${PREFIX}${runId}`));
    for (const parent of this.parents) fs.mkdirSync(parent, { recursive: true });
    if (l.kind === 'v2') {
      // The controller has to be handed down from the root to the run's folder, then to its groups.
      fs.writeFileSync(path.join(l.dir, 'cgroup.subtree_control'), '+cpu');
      fs.writeFileSync(path.join(this.parents[0], 'cgroup.subtree_control'), '+cpu');
    }
    for (const name of names) for (const parent of this.parents) fs.mkdirSync(path.join(parent, name));
  }

  private dirs(name: string): string[] {
    if (!this.names.includes(name)) throw new Error(`no CPU group ${name}`);
    return this.parents.map((parent) => path.join(parent, name));
  }

  /** `command` started inside the group `name`: a shell enters the group, then becomes the command. */
  command(name: string, command: string[]): string[] {
    const enter = this.dirs(name)
      .map((dir) => `echo $$ > ${path.join(dir, 'cgroup.procs')}`)
      .join(' && ');
    return ['sh', '-c', `${enter} && exec "$@"`, 'sh', ...command];
  }

  /** At most `cores` cores for the group (that share of every 10 ms); null = no limit. */
  limit(name: string, cores: number | null): void {
    const [dir] = this.dirs(name);
    const quota = cores === null ? null : Math.round(cores * PERIOD_US);
    if (this.layout.kind === 'v2') {
      fs.writeFileSync(path.join(dir, 'cpu.max'), `${quota ?? 'max'} ${PERIOD_US}`);
    } else {
      fs.writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quota ?? -1));
    }
  }

  /**
   * The group's weight against the machine's other processes, `factor` times a process's default
   * (cgroup v1 shares 1024, v2 weight 100): with other work running here, a group of several
   * processes would otherwise weigh as one process, and a host would not get its budget.
   */
  weigh(name: string, factor: number): void {
    const [dir] = this.dirs(name);
    if (this.layout.kind === 'v2')
      fs.writeFileSync(path.join(dir, 'cpu.weight'), String(Math.round(100 * factor)));
    else fs.writeFileSync(path.join(dir, 'cpu.shares'), String(Math.round(1024 * factor)));
  }

  /** CPU seconds the group's processes have used since it was made. */
  usageS(name: string): number {
    const dirs = this.dirs(name);
    if (this.layout.kind === 'v2') return statField(dirs[0], 'usage_usec') / 1e6;
    const acct = dirs.find((d) => fs.existsSync(path.join(d, 'cpuacct.usage'))) ?? dirs[0];
    return Number(fs.readFileSync(path.join(acct, 'cpuacct.usage'), 'utf8')) / 1e9;
  }

  /** Seconds the group waited, runnable, because its quota was spent (summed over its periods). */
  throttledS(name: string): number {
    const [dir] = this.dirs(name);
    return this.layout.kind === 'v2'
      ? statField(dir, 'throttled_usec') / 1e6
      : statField(dir, 'throttled_time') / 1e9;
  }

  /** Moves this process (and so what it starts from then on) into group `name`, or back to the root with null. */
  moveSelf(name: string | null): void {
    const dirs = name === null ? hierarchies(this.layout) : this.dirs(name);
    for (const dir of dirs) fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
  }

  /** Removes the groups (their processes must be gone: the network's teardown kills them). */
  remove(): void {
    this.moveSelf(null);
    for (const parent of this.parents) removeTree(parent);
  }
}

function statField(dir: string, field: string): number {
  const text = fs.readFileSync(path.join(dir, 'cpu.stat'), 'utf8');
  return Number(new RegExp(`^${field} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

/** Busy and total CPU seconds of the whole machine so far (/proc/stat's first line). */
export function machineCpuS(): { busy: number; total: number } {
  const fields = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4]; // idle, iowait
  return { busy: (total - idle) / clockTicks(), total: total / clockTicks() };
}
