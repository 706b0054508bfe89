import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixture } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The core as another project gets it: the BUILT package (dist/), run by plain Node in a child
// process, without the source condition the tests set in NODE_OPTIONS and without tsx.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const testing = path.join(packageDir, 'src', 'testing');

function runBuilt(script: string, args: string[], timeoutMs = 240_000) {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
  delete env.NODE_OPTIONS;
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(testing, script), ...args], { cwd: packageDir, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => {
  if (!fs.existsSync(path.join(packageDir, 'dist', 'index.js')))
    throw new Error('packages/core/dist is missing: run `npm run build` first');
});

describe('the built core', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-core-silent-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes nothing to stdout or stderr: probe, analysis (essentia too), media, index, clip pool', async () => {
    const result = await runBuilt('library-calls.mjs', [fixture('drums-100bpm'), dir]);
    expect({ stdout: result.stdout, stderr: result.stderr }).toEqual({ stdout: '', stderr: '' });
    expect(result.code).toBe(0);
  });

  const loaded = async (entry: string, also?: string) => {
    const result = await runBuilt('loaded-modules.mjs', also ? [entry, also] : [entry], 60_000);
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as string[];
  };

  it('loads neither sharp nor hnswlib-node, pino nor zod for @earshot/core/descriptors', async () => {
    const packages = await loaded('@earshot/core/descriptors');
    for (const heavy of ['sharp', 'hnswlib-node', 'pino', 'zod', 'essentia.js', 'mpg123-decoder'])
      expect(packages).not.toContain(heavy);
  });

  it('loads the native addons only when used, from any entry point', async () => {
    for (const entry of ['@earshot/core', '@earshot/core/media', '@earshot/core/similarity']) {
      const packages = await loaded(entry);
      expect(packages).not.toContain('sharp');
      expect(packages).not.toContain('hnswlib-node');
    }
    expect(await loaded('@earshot/core/media', 'images')).toContain('sharp');
  });
});
