import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from './program.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = path.join(root, 'cli/bin/earshot.mjs');
const rootVersion = (
  JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }
).version;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-cli-startup-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// A module loader hook that writes every module the child resolves through the ES module loader to
// a log file (synchronously, from the hooks thread: nothing is lost when the process exits).
fs.writeFileSync(
  path.join(work, 'hooks.mjs'),
  `import fs from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  fs.appendFileSync(log, result.url + '\\n');
  return result;
}
`,
);
fs.writeFileSync(
  path.join(work, 'record.mjs'),
  `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(path.join(work, 'hooks.mjs')).href)}, { data: { log: process.env.EARSHOT_MODULE_LOG } });
`,
);

type Mode = 'built' | 'sources';

/** NODE_OPTIONS without the source condition (the built CLI, as production runs it), or with it. */
function envFor(mode: Mode, log: string): NodeJS.ProcessEnv {
  const options = (process.env.NODE_OPTIONS ?? '')
    .split(/\s+/)
    .filter((o) => o && !o.includes('@earshot/source'));
  if (mode === 'sources') options.push('--conditions=@earshot/source');
  return { ...process.env, NODE_OPTIONS: options.join(' '), EARSHOT_MODULE_LOG: log };
}

let runs = 0;

/** Runs the CLI; returns its output and the workspace modules (outside cli/) it loaded. */
function earshot(mode: Mode, args: string[]) {
  const log = path.join(work, `modules-${++runs}.log`);
  fs.writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--import', path.join(work, 'record.mjs'), bin, ...args], {
    encoding: 'utf8',
    env: envFor(mode, log),
    timeout: 60_000,
  });
  const loaded = fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => path.relative(root, fileURLToPath(url)))
    .filter(
      (file) => !file.startsWith('..') && !file.startsWith('cli/') && !file.startsWith('node_modules/'),
    );
  return { ...run, loaded: [...new Set(loaded)] };
}

/** Every command line that asks for a command's help: `serve --help`, `credentials create --help`… */
function helpCommandLines(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) => {
    const line = [...prefix, c.name()];
    return [[...line, '--help'], ...helpCommandLines(c, line)];
  });
}

describe.each(['built', 'sources'] as const)('earshot start-up (%s)', (mode) => {
  it('prints the version with --version, -V and the version command', () => {
    for (const args of [['--version'], ['-V'], ['version']]) {
      const run = earshot(mode, args);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(`earshot ${rootVersion}\n`);
      expect(run.loaded, `earshot ${args.join(' ')}`).toEqual([]);
    }
  });

  it('prints the root help with the environment variables, loading only the configuration', () => {
    const run = earshot(mode, ['--help']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('Commands:');
    expect(run.stdout).toContain('-V, --version');
    expect(run.stdout).toMatch(/Environment variables:\n {2}PORT {2,}HTTP port/);
    expect(run.loaded.length).toBeGreaterThan(0);
    expect(run.loaded.filter((file) => !file.startsWith('packages/common/'))).toEqual([]);
  });

  it('shows the root help after an unknown command, environment variables included', () => {
    const run = earshot(mode, ['no-such-command']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("unknown command 'no-such-command'");
    expect(run.stderr).toContain('Environment variables:');
  });
});

describe('every command’s help (built)', () => {
  const lines = helpCommandLines(buildProgram());

  it('lists the commands of the program', () => {
    expect(lines.map((l) => l.slice(0, -1).join(' '))).toEqual(
      expect.arrayContaining(['analyze', 'serve', 'worker', 'credentials create', 'moderate reject']),
    );
  });

  it.each(lines.map((l) => [l.join(' '), l]))('earshot %s loads no package', (_, args) => {
    const run = earshot('built', args as string[]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: earshot /);
    expect(run.stdout).not.toContain('Environment variables:');
    expect(run.loaded).toEqual([]);
  });
});
