import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { createLogger, loadConfig } from '@earshot/common';

export type BinaryName = 'ffmpeg' | 'ffprobe';

export interface ResolvedBinary {
  path: string;
  version: string;
  /** Where the path came from: the environment override, the system PATH or the npm installer package. */
  source: 'env' | 'path' | 'npm';
}

const require = createRequire(import.meta.url);
const cache = new Map<BinaryName, ResolvedBinary>();

/** First line of `<bin> -version`, or undefined when the binary does not run. */
export function binaryVersion(binPath: string): string | undefined {
  const result = spawnSync(binPath, ['-version'], { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0 || !result.stdout) return undefined;
  const first = result.stdout.split('\n')[0] ?? '';
  const match = /version (\S+)/.exec(first);
  return match ? match[1] : first.trim();
}

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
 * Resolves ffmpeg/ffprobe once per process, in the order DECISIONS.md fixes: the FFMPEG_PATH /
 * FFPROBE_PATH override, then the binary on PATH, then the npm installer packages. Logs the choice
 * because a 2018 npm build and Debian's 5.1 encode slightly differently.
 */
export function resolveBinary(name: BinaryName): ResolvedBinary {
  const cached = cache.get(name);
  if (cached) return cached;
  const config = loadConfig();
  const override = name === 'ffmpeg' ? config.FFMPEG_PATH : config.FFPROBE_PATH;
  const candidates: Array<[string | undefined, ResolvedBinary['source']]> = override
    ? [[override, 'env']]
    : [
        [name, 'path'],
        [npmInstallerPath(name), 'npm'],
      ];
  for (const [candidate, source] of candidates) {
    if (!candidate) continue;
    const version = binaryVersion(candidate);
    if (version) {
      const resolved = { path: candidate, version, source };
      cache.set(name, resolved);
      createLogger(config.LOG_LEVEL).info({ binary: name, ...resolved }, `using ${name}`);
      return resolved;
    }
  }
  const hint = override
    ? `${name === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH'}=${override} does not run`
    : `${name} is neither on PATH nor installed from npm`;
  throw new Error(`Cannot find a working ${name}: ${hint}`);
}
