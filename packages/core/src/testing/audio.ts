import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Makes small inputs with ffmpeg's lavfi sources in a temp dir, for tests that need exact synthetic truth. */
export function makeTempDir(prefix = 'earshot-media-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function synth(file: string, lavfi: string, outputArgs: string[] = []): string {
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', lavfi, ...outputArgs, file]);
  return file;
}
