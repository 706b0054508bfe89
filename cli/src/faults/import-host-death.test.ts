import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { fixture } from '@earshot/fixtures';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedEnv } from './embedded-env.ts';

/**
 * `earshot import` following another process's embedded database when that host is killed
 * (SIGKILL) mid-import: the import goes on as `serve` does — on the new host, or as the host itself —
 * and finishes with every file in the catalogue exactly once and every sound processed by its
 * in-process pipeline. Before, it gave up with `read ECONNRESET` (issue 31, item 10).
 */
const main = fileURLToPath(new URL('../main.ts', import.meta.url));
const folders: string[] = [];
const children: ChildProcess[] = [];
const FILES = 6;

function folder(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

function start(dataDir: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { env: embeddedEnv(dataDir) });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return { child, output: () => out };
}

async function serve(dataDir: string): Promise<{ child: ChildProcess; output: () => string }> {
  const started = start(dataDir, ['serve']);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${started.output()}`)), 90_000);
    started.child.stdout?.on('data', () => {
      if (/is serving on http/.test(started.output())) {
        clearTimeout(timer);
        resolve();
      }
    });
    started.child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${started.output()}`)));
  });
  return started;
}

function exited(child: ChildProcess, ms: number): Promise<number | null | 'still running'> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still running'), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** The sound folders the import has stored originals in so far (a file system look: no database connection). */
function storedOriginals(dataDir: string): number {
  const root = path.join(dataDir, 'sounds');
  if (!fs.existsSync(root)) return 0;
  return fs
    .readdirSync(root, { recursive: true })
    .map(String)
    .filter((p) => path.basename(p).startsWith('original')).length;
}

/** `FILES` distinct audio files (a changed last byte: the catalogue refuses a file it already has). */
function inputFiles(): string {
  const inputs = folder('earshot-import-death-in-');
  const source = fs.readFileSync(fixture('sine-a4'));
  for (let i = 0; i < FILES; i++) {
    const bytes = Buffer.from(source);
    bytes[bytes.length - 1] ^= i + 1;
    fs.writeFileSync(path.join(inputs, `tone-${String(i).padStart(2, '0')}.wav`), bytes);
  }
  return inputs;
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every file of `inputs` is one sound, processed; nothing under the data folder belongs to no sound. */
async function expectImportedOnce(dataDir: string, inputs: string): Promise<void> {
  const catalogue = await openCatalogue({
    config: { dataDir },
    logger: createLogger('silent'),
    role: 'command',
  });
  try {
    const sounds = await catalogue.db
      .selectFrom('sounds')
      .select(['id', 'original_filename', 'processing_state', 'processing_error'])
      .orderBy('original_filename')
      .execute();
    expect(sounds.map((s) => s.original_filename)).toEqual(fs.readdirSync(inputs).sort());
    expect(sounds.filter((s) => s.processing_state !== 'Processed')).toEqual([]);
    // No sound folder of a sound the catalogue does not have (an original stored for a record
    // that was rolled back with the host), and no stage's scratch files.
    const root = path.join(dataDir, 'sounds');
    const ids = fs
      .readdirSync(root, { recursive: true })
      .map(String)
      .filter((p) => p.split(path.sep).length === 2)
      .map((p) => Number(path.basename(p)))
      .sort((a, b) => a - b);
    expect(ids).toEqual(sounds.map((s) => s.id).sort((a, b) => a - b));
    const leftovers = fs
      .readdirSync(root, { recursive: true })
      .map(String)
      .filter((p) => p.split(path.sep).includes('work'));
    expect(leftovers).toEqual([]);
  } finally {
    await catalogue.close();
  }
}

/**
 * A `serve` hosting `dataDir` (and, with `follower`, a second `serve` following it), and `earshot
 * import` of the input folder following the host too; the host is SIGKILLed once a third of the
 * files are stored. Returns the import's exit code and output.
 */
async function importThroughHostDeath(
  dataDir: string,
  inputs: string,
  follower: boolean,
): Promise<{ code: number | null | 'still running'; output: string }> {
  const host = await serve(dataDir);
  if (follower) await serve(dataDir);
  const user = spawnSync(
    process.execPath,
    ['--import', 'tsx', main, 'users', 'create', 'uploader', '--password', 'pw'],
    { env: embeddedEnv(dataDir), encoding: 'utf8' },
  );
  expect(user.status, user.stderr).toBe(0);

  const imported = start(dataDir, ['import', inputs, '--user', 'uploader', '--approve']);
  // Killed while files are still being queued (and the first ones processed).
  const deadline = Date.now() + 120_000;
  while (storedOriginals(dataDir) < FILES / 3 && Date.now() < deadline && imported.child.exitCode === null) {
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(storedOriginals(dataDir)).toBeLessThan(FILES);
  host.child.kill('SIGKILL');
  await exited(host.child, 10_000);
  const code = await exited(imported.child, 480_000);
  return { code, output: imported.output() };
}

describe('the embedded host killed while `earshot import` follows it', () => {
  it('the import hosts the database itself, imports every file once and processes every sound', async () => {
    const dataDir = folder('earshot-import-death-');
    const inputs = inputFiles();
    const { code, output } = await importThroughHostDeath(dataDir, inputs, false);
    expect(code, output).toBe(0);
    expect(output).toContain(`processed: ${FILES}, failed: 0`);
    expect(output).not.toMatch(/unhandled|uncaught|"level":50/i);
    await expectImportedOnce(dataDir, inputs);
  }, 600_000);

  it('with another `serve` following too: the import goes on with the new host, every file once', async () => {
    const dataDir = folder('earshot-import-death-');
    const inputs = inputFiles();
    const { code, output } = await importThroughHostDeath(dataDir, inputs, true);
    expect(code, output).toBe(0);
    expect(output).toContain(`processed: ${FILES}, failed: 0`);
    expect(output).not.toMatch(/unhandled|uncaught|"level":50/i);
    await expectImportedOnce(dataDir, inputs);
  }, 600_000);
});
