// Start-up benchmark (issue 32): how long a cold `earshot` process takes and how much memory it
// holds, run as production runs it (`node cli/bin/earshot.mjs`, the compiled packages, no
// TypeScript loader), side by side with the floor `node -e 0` in the same rounds; the cost of
// importing the descriptor analysis into a fresh process; the tarball sizes of the packages.
// `npx earshot bench startup [--runs 7]`. Results: benchmarks/results/startup.md (everything from
// its "## Notes" heading on is kept from the file as it was).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixture } from '@earshot/fixtures';
import { arg } from './args.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.join(here, '..', '..');
const resultsFile = path.join(here, '..', 'results', 'startup.md');
const bin = path.join(repoRoot, 'cli', 'bin', 'earshot.mjs');
// GNU time: the peak RSS of a child comes from the kernel's accounting of the finished process
// (wait4's ru_maxrss), which Node does not expose for its children.
const GNU_TIME = '/usr/bin/time';
const CHILD_TIMEOUT_MS = 120_000;

interface Case {
  key: string;
  label: string;
  args: string[];
  /** Target for the median wall time (s), or for the in-process import time (ms) when `importMs`. */
  wallTarget?: number;
  rssTargetMb?: number;
  /** The child prints how long its import took (ms) as its last stdout line. */
  importMs?: { targetMs?: number };
  note?: string;
}

interface Sample {
  wallS: number;
  cpuS: number;
  rssMb: number;
  importMs?: number;
}

/** The environment of a production process: no source condition, nothing loaded before the program. */
function productionEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  const options = (env.NODE_OPTIONS ?? '')
    .split(/\s+/)
    .filter((o) => o && !o.includes('@earshot/source'))
    .join(' ');
  if (options) env.NODE_OPTIONS = options;
  else delete env.NODE_OPTIONS;
  return env;
}

/** A one-second stereo WAV: the first second of the 60-second music fixture, its header rewritten. */
function oneSecondWav(file: string): void {
  const source = fs.readFileSync(fixture('music-mix-60s'));
  const dataAt = source.indexOf('data') + 8;
  const header = Buffer.from(source.subarray(0, dataAt));
  const byteRate = header.readUInt32LE(28);
  header.writeUInt32LE(byteRate, dataAt - 4);
  header.writeUInt32LE(byteRate + dataAt - 8, 4);
  fs.writeFileSync(file, Buffer.concat([header, source.subarray(dataAt, dataAt + byteRate)]));
}

/** One cold process of `c` under GNU time; wall time is taken here, around the whole child. */
function runOnce(c: Case, env: NodeJS.ProcessEnv, timeFile: string): Sample {
  const t0 = process.hrtime.bigint();
  const out = spawnSync(GNU_TIME, ['-o', timeFile, '-f', '%U %S %M', process.execPath, ...c.args], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: CHILD_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  if (out.status !== 0) {
    throw new Error(
      `${c.label} failed (status ${out.status}, signal ${out.signal}):\n${out.stderr?.toString().slice(-2000)}`,
    );
  }
  const [user, sys, maxKb] =
    fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop()?.split(' ').map(Number) ?? [];
  const sample: Sample = { wallS, cpuS: user + sys, rssMb: maxKb / 1024 };
  if (c.importMs) sample.importMs = Number(out.stdout.toString().trim().split('\n').pop());
  return sample;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
}
const median = (xs: number[]) => quantile(xs, 0.5);

function progress(line: string): void {
  process.stderr.write(`\r  ${line.padEnd(70)}`);
}

interface Tarball {
  name: string;
  dir: string;
  isPrivate: boolean;
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/** `npm pack --dry-run` of every workspace but the benchmarks: what its tarball would hold. */
function tarballs(): Tarball[] {
  const root = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  const dirs = root.workspaces
    .flatMap((w) =>
      w.endsWith('/*')
        ? fs
            .readdirSync(path.join(repoRoot, w.slice(0, -2)))
            .map((d) => path.join(w.slice(0, -2), d))
            .filter((d) => fs.existsSync(path.join(repoRoot, d, 'package.json')))
        : [w],
    )
    .filter((d) => d !== 'benchmarks')
    .sort();
  return dirs.map((dir, i) => {
    progress(`[tarballs ${i + 1}/${dirs.length}] npm pack --dry-run -w ${dir}`);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')) as {
      name: string;
      private?: boolean;
    };
    const out = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', dir], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: CHILD_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (out.status !== 0) throw new Error(`npm pack --dry-run -w ${dir} failed:\n${out.stderr}`);
    const [info] = JSON.parse(out.stdout) as { size: number; unpackedSize: number; entryCount: number }[];
    return { name: pkg.name, dir, isPrivate: pkg.private === true, ...info };
  });
}

/** The descriptor subpath when the core package exports it, else the whole entry (marked so). */
function descriptorsEntry(): { specifier: string; subpath: boolean } {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'packages/core/package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  return pkg.exports['./descriptors']
    ? { specifier: '@earshot/core/descriptors', subpath: true }
    : { specifier: '@earshot/core', subpath: false };
}

const importScript = (specifier: string) =>
  `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t) + '\\n');`;

async function main(): Promise<void> {
  const runs = Number(arg('runs', '7'));
  if (!fs.existsSync(GNU_TIME)) {
    throw new Error(
      `${GNU_TIME} is missing: the peak memory of a child is read with GNU time (apt-get install time)`,
    );
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-startup-'));
  const wav = path.join(work, 'one-second.wav');
  oneSecondWav(wav);
  const timeFile = path.join(work, 'time.txt');
  const env = productionEnv();
  const descriptors = descriptorsEntry();
  const cases: Case[] = [
    { key: 'floor', label: '`node -e 0` (floor)', args: ['-e', '0'] },
    {
      key: 'version',
      label: '`earshot --version`',
      args: [bin, '--version'],
      wallTarget: 0.3,
      rssTargetMb: 60,
    },
    { key: 'help', label: '`earshot --help`', args: [bin, '--help'] },
    { key: 'analyze', label: '`earshot analyze` of a 1 s WAV', args: [bin, 'analyze', wav], wallTarget: 1.0 },
    {
      key: 'descriptors',
      label: `\`import('${descriptors.specifier}')\``,
      args: ['--input-type=module', '-e', importScript(descriptors.specifier)],
      importMs: { targetMs: 150 },
      note: descriptors.subpath
        ? undefined
        : 'the `@earshot/core/descriptors` subpath does not exist in this tree: the whole entry was measured in its place (re-run after the subpath lands)',
    },
  ];
  if (descriptors.subpath) {
    cases.push({
      key: 'core',
      label: "`import('@earshot/core')`",
      args: ['--input-type=module', '-e', importScript('@earshot/core')],
      importMs: {},
    });
  }
  const loadBefore = os.loadavg();
  const started = new Date();
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.key, []]));
  // One round first that is not counted: the files the processes read come from the page cache in
  // every counted round, as on a machine where earshot has run before.
  for (let round = 0; round <= runs; round++) {
    // Each round runs every case once, the order rotated, so that a busy moment is shared out.
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + round) % cases.length];
      progress(round === 0 ? `warm-up: ${c.label}` : `round ${round}/${runs}: ${c.label}`);
      const sample = runOnce(c, env, timeFile);
      if (round > 0) samples.get(c.key)?.push(sample);
    }
  }
  const packs = tarballs();
  process.stderr.write('\n');
  const loadAfter = os.loadavg();
  fs.rmSync(work, { recursive: true, force: true });

  const report = render({ cases, samples, packs, runs, started, loadBefore, loadAfter });
  process.stdout.write(report);
  const kept = keptNotes();
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  fs.writeFileSync(resultsFile, kept ? `${report}\n${kept}` : report);
  process.stdout.write(`\nwritten to ${path.relative(process.cwd(), resultsFile)}\n`);
}

/** Hand-written notes of the results file (from its "## Notes" heading on), kept across runs. */
function keptNotes(): string {
  const text = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '';
  const at = text.indexOf('\n## Notes');
  return at < 0 ? '' : text.slice(at + 1);
}

function render(r: {
  cases: Case[];
  samples: Map<string, Sample[]>;
  packs: Tarball[];
  runs: number;
  started: Date;
  loadBefore: number[];
  loadAfter: number[];
}): string {
  const floor = median((r.samples.get('floor') ?? []).map((s) => s.wallS));
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const mark = (ok: boolean) => (ok ? '✓' : '✗');
  const lines: string[] = [
    '# Start-up benchmark',
    '',
    `Command: \`npx earshot bench startup --runs ${r.runs}\`. Run ${r.started.toISOString()}, Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}; load average (1/5/15 min) ${load(r.loadBefore)} before, ${load(r.loadAfter)} after.`,
    '',
    `Each row is a fresh process, run as production runs it: \`node cli/bin/earshot.mjs …\` resolves the packages to their compiled \`dist\` (no source condition, no TypeScript loader), \`LOG_LEVEL=warn\`. ${r.runs} rounds, each running every row once in a rotated order after one uncounted round (files in the page cache). Wall time is taken by the benchmark around the child; CPU (user + system) and peak RSS come from GNU time (\`/usr/bin/time -f '%U %S %M'\`: the kernel's accounting of the finished child, ru_maxrss). The import rows also give the time of the \`import()\` itself, taken inside the child.`,
    '',
    '| process | wall s, median (quartiles) | above the floor s | CPU s | peak RSS MB | import ms, median (quartiles) | target |',
    '|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const c of r.cases) {
    const s = r.samples.get(c.key) ?? [];
    const wall = s.map((x) => x.wallS);
    const rss = median(s.map((x) => x.rssMb));
    const targets: string[] = [];
    if (c.wallTarget !== undefined)
      targets.push(`wall ≤ ${c.wallTarget} s ${mark(median(wall) <= c.wallTarget)}`);
    if (c.rssTargetMb !== undefined) targets.push(`≤ ${c.rssTargetMb} MB ${mark(rss <= c.rssTargetMb)}`);
    let importCell = '—';
    if (c.importMs) {
      const ms = s.map((x) => x.importMs ?? Number.NaN);
      importCell = `${median(ms).toFixed(0)} (${quantile(ms, 0.25).toFixed(0)}–${quantile(ms, 0.75).toFixed(0)})`;
      if (c.importMs.targetMs !== undefined)
        targets.push(`import ≤ ${c.importMs.targetMs} ms ${mark(median(ms) <= c.importMs.targetMs)}`);
    }
    lines.push(
      `| ${c.label}${c.note ? ' †' : ''} | ${median(wall).toFixed(3)} (${quantile(wall, 0.25).toFixed(3)}–${quantile(wall, 0.75).toFixed(3)}) | ${c.key === 'floor' ? '—' : (median(wall) - floor).toFixed(3)} | ${median(s.map((x) => x.cpuS)).toFixed(2)} | ${rss.toFixed(0)} | ${importCell} | ${targets.join(', ') || '—'} |`,
    );
  }
  for (const c of r.cases) if (c.note) lines.push('', `† ${c.note}.`);
  lines.push(
    '',
    '## Tarball sizes',
    '',
    'What `npm pack --dry-run --json --ignore-scripts -w <dir>` says each package would publish (after the build the benchmark runs first).',
    '',
    '| package | folder | private | tarball kB | unpacked kB | files |',
    '|---|---|---|---:|---:|---:|',
    ...r.packs.map(
      (p) =>
        `| ${p.name} | ${p.dir} | ${p.isPrivate ? 'yes' : 'no'} | ${(p.size / 1024).toFixed(0)} | ${(p.unpackedSize / 1024).toFixed(0)} | ${p.entryCount} |`,
    ),
    '',
  );
  return lines.join('\n');
}

await main();
