import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { FfmpegNotFoundError } from './errors.ts';

export type BinaryName = 'ffmpeg' | 'ffprobe';

export interface ResolvedBinary {
  path: string;
  version: string;
  /** Where the path came from: the caller's option, the system PATH or the npm installer package. */
  source: 'option' | 'path' | 'npm';
}

const require = createRequire(import.meta.url);

/** First line of `<bin> -version`, or undefined when the binary does not run. */
export function binaryVersion(binPath: string): string | undefined {
  const result = spawnSync(binPath, ['-version'], { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0 || !result.stdout) return undefined;
  const first = result.stdout.split('\n')[0] ?? '';
  const match = /version (\S+)/.exec(first);
  return match ? match[1] : first.trim();
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
 * Finds a working ffmpeg/ffprobe in the order DECISIONS.md fixes: the path the caller names (and
 * only that one when named), else the binary on PATH, else the npm installer packages. Runs each
 * candidate's `-version`, so it costs a process start: callers keep the answer (Ffmpeg does).
 */
export function resolveBinary(name: BinaryName, explicitPath?: string): ResolvedBinary {
  const candidates: Array<[string | undefined, ResolvedBinary['source']]> = explicitPath
    ? [[explicitPath, 'option']]
    : [
        [name, 'path'],
        [npmInstallerPath(name), 'npm'],
      ];
  for (const [candidate, source] of candidates) {
    if (!candidate) continue;
    const version = binaryVersion(candidate);
    if (version) return { path: candidate, version, source };
  }
  throw new FfmpegNotFoundError(name, explicitPath);
}
