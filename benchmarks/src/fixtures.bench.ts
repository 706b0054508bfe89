// Fixture generator benchmark (foundation issue): the default set (aim: < 20 s of CPU on one core, < 60 MB)
// against the floor of writing the same bytes with no synthesis or encoding; and the 10-minute file, whose
// memory must not grow with its length (compared with the 60 s mix built the same streaming way).
// Each measurement runs in a fresh process so peak memory and CPU are its own.
//   npx earshot bench fixtures [--skip-long]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureSpec, generateFixtures, loadManifest } from '@earshot/fixtures';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'fixtures.md');
const MB = 1024 * 1024;
const clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** CPU seconds of this process and of its reaped children (ffmpeg), from /proc. */
function cpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const usage = process.cpuUsage();
  const children = (Number(fields[13]) + Number(fields[14])) / clockTicks;
  return (usage.user + usage.system) / 1e6 + children;
}

interface Measurement {
  wall: number;
  cpu: number;
  peakRssMb: number;
  rssBeforeMb: number;
  files: number;
  bytes: number;
}

// ---------------------------------------------------------------- child: one measured run
async function child(role: string, outDir: string): Promise<void> {
  const rssBefore = process.memoryUsage().rss / MB;
  const cpu0 = cpuSeconds();
  const t0 = performance.now();
  let files = 0;
  let bytes = 0;
  if (role === 'floor') {
    // Same files, same sizes, written from one zero-filled buffer: the disk cost alone.
    const manifest = loadManifest(arg('manifest-dir')!);
    const zeros = Buffer.alloc(1 << 20);
    for (const e of manifest.fixtures) {
      const fd = fs.openSync(path.join(outDir, e.file), 'w');
      for (let left = e.filesize; left > 0; left -= zeros.length) {
        fs.writeSync(fd, zeros, 0, Math.min(left, zeros.length));
      }
      fs.closeSync(fd);
      files++;
      bytes += e.filesize;
    }
  } else if (role === 'one') {
    // One fixture built alone, to see how its memory depends on its length.
    const name = arg('name')!;
    const file = path.join(outDir, `${name}.wav`);
    process.stderr.write(`  building ${name}\n`);
    await fixtureSpec(name).build(file);
    files = 1;
    bytes = fs.statSync(file).size;
  } else {
    const manifest = await generateFixtures({
      outDir,
      force: true,
      onProgress: (p) => {
        if (p.done % 25 === 0 || p.done === p.total)
          process.stderr.write(`  default set: [${p.done}/${p.total}]\n`);
      },
    });
    for (const e of manifest.fixtures) {
      files++;
      bytes += e.filesize;
    }
  }
  const m: Measurement = {
    wall: (performance.now() - t0) / 1000,
    cpu: cpuSeconds() - cpu0,
    peakRssMb: (process.resourceUsage().maxRSS * 1024) / MB,
    rssBeforeMb: rssBefore,
    files,
    bytes,
  };
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

function measure(role: string, outDir: string, extra: string[] = []): Measurement {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--role', role, '--out', outDir, ...extra],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 },
  );
  if (result.status !== 0) throw new Error(`${role} run failed (${result.status})`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Measurement;
}

const fmt = (v: number, digits = 1) => v.toFixed(digits);
const mark = (ok: boolean) => (ok ? '✓' : '✗');

async function main(): Promise<void> {
  const skipLong = process.argv.includes('--skip-long');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-fixtures-'));
  try {
    const setDir = path.join(work, 'set');
    const floorDir = path.join(work, 'floor');
    fs.mkdirSync(floorDir);
    process.stderr.write(`fixtures benchmark in ${work}\n`);
    const ours = measure('default', setDir);
    process.stderr.write('  floor: writing the same bytes\n');
    const floor = measure('floor', floorDir, ['--manifest-dir', setDir]);
    const mix = skipLong ? undefined : measure('one', floorDir, ['--name', 'music-mix-60s']);
    const long = skipLong ? undefined : measure('one', floorDir, ['--name', 'long-10min']);

    const rows = [
      '| run | files | size MB | wall s | CPU s (incl. ffmpeg) | peak RSS MB |',
      '|---|---:|---:|---:|---:|---:|',
      `| default set, generated (--force) | ${ours.files} | ${fmt(ours.bytes / MB)} | ${fmt(ours.wall)} | ${fmt(ours.cpu)} | ${fmt(ours.peakRssMb)} |`,
      `| **floor: write the same bytes, no synthesis** | ${floor.files} | ${fmt(floor.bytes / MB)} | ${fmt(floor.wall)} | ${fmt(floor.cpu)} | ${fmt(floor.peakRssMb)} |`,
      ...(long && mix
        ? [
            `| music-mix-60s alone (streamed) | 1 | ${fmt(mix.bytes / MB)} | ${fmt(mix.wall)} | ${fmt(mix.cpu)} | ${fmt(mix.peakRssMb)} |`,
            `| long-10min alone (streamed) | 1 | ${fmt(long.bytes / MB)} | ${fmt(long.wall)} | ${fmt(long.cpu)} | ${fmt(long.peakRssMb)} |`,
          ]
        : []),
    ];
    const checks = [
      '| measure | value |',
      '|---|---:|',
      `| default set CPU (aim < 20 s on one core) | **${fmt(ours.cpu)} s** ${mark(ours.cpu < 20)} |`,
      `| default set size (aim < 60 MB) | **${fmt(ours.bytes / MB)} MB** ${mark(ours.bytes < 60 * MB)} |`,
      `| ratio ours / floor (CPU) | ${fmt(ours.cpu / Math.max(floor.cpu, 1e-3))} |`,
      ...(long && mix
        ? (() => {
            const longGrowth = long.peakRssMb - long.rssBeforeMb;
            const mixGrowth = mix.peakRssMb - mix.rssBeforeMb;
            return [
              `| memory growth: 10-minute file / 60 s mix (aim: bounded, < 1.5 for 10× the audio) | **${fmt(longGrowth)} MB / ${fmt(mixGrowth)} MB = ${fmt(longGrowth / mixGrowth, 2)}** ${mark(longGrowth < 1.5 * mixGrowth)} |`,
              `| 10-minute file: CPU / audio duration | ${fmt(long.cpu / 600, 3)} |`,
            ];
          })()
        : []),
    ];
    const body = [
      '## Fixture generator benchmark',
      '',
      `Command: \`npx earshot bench fixtures${skipLong ? ' --skip-long' : ''}\``,
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${fmt(os.totalmem() / 1024 ** 3, 0)} GiB, Node ${process.version}, ${new Date().toISOString()}`,
      '',
      ...rows,
      '',
      ...checks,
      '',
      'Notes: the machine is shared, so wall times carry noise; CPU seconds are steadier. Peak RSS includes the',
      'Node runtime and tsx (about 100 MB before any work).',
    ].join('\n');
    process.stdout.write(`\n${body}\n`);
    fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
    fs.writeFileSync(resultsFile, `${body}\n`);
    process.stderr.write(`results written to ${path.relative(process.cwd(), resultsFile)}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const role = arg('role');
if (role) await child(role, arg('out')!);
else await main();
