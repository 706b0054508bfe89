import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FfmpegNotFoundError } from './errors.ts';

export type BinaryName = 'ffmpeg' | 'ffprobe';

export interface ResolvedBinary {
  path: string;
  /** Where the path came from: the caller's option, the system PATH or the npm installer package. */
  source: 'option' | 'path' | 'npm';
}

const require = createRequire(import.meta.url);

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `name` as the shell would find it on PATH (a path with a slash is taken as it is). */
function onPath(name: string): string | undefined {
  if (name.includes('/')) return isExecutableFile(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutableFile(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/** The binary an optional installer package ships, when that package is installed. */
function npmInstallerPath(name: BinaryName): string | undefined {
  try {
    const mod = require(name === 'ffmpeg' ? '@ffmpeg-installer/ffmpeg' : '@ffprobe-installer/ffprobe') as {
      path: string;
    };
    return mod.path;
  } catch {
    return undefined;
  }
}

/**
 * Finds ffmpeg/ffprobe in the order DECISIONS.md fixes: the path the caller names (and only that one
 * when named), else the binary on PATH, else the npm installer packages. It looks for an executable
 * file and starts no process: `-version` costs a fifth of a second per binary, more than a short
 * command's whole analysis, and a binary that is there but broken fails its first run with its stderr.
 */
export function resolveBinary(name: BinaryName, explicitPath?: string): ResolvedBinary {
  if (explicitPath) {
    if (onPath(explicitPath)) return { path: explicitPath, source: 'option' };
    throw new FfmpegNotFoundError(name, explicitPath);
  }
  if (onPath(name)) return { path: name, source: 'path' };
  const fromNpm = npmInstallerPath(name);
  if (fromNpm && isExecutableFile(fromNpm)) return { path: fromNpm, source: 'npm' };
  throw new FfmpegNotFoundError(name);
}

/** The version `<bin> -version` prints on its first line, or undefined when it does not run. */
export function binaryVersion(binPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(binPath, ['-version'], { encoding: 'utf8', timeout: 10_000 }, (err, stdout) => {
      if (err || !stdout) return resolve(undefined);
      const first = stdout.split('\n')[0] ?? '';
      resolve(/version (\S+)/.exec(first)?.[1] ?? first.trim());
    });
  });
}
