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

/** A 1 kHz tone of `seconds` copied into `channels` channels (no channel layout past 8). */
export function synthChannels(file: string, channels: number, seconds = 0.5): string {
  const labels = Array.from({ length: channels }, (_, i) => `[c${i}]`).join('');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=f=1000:d=${seconds}`,
    '-filter_complex',
    `[0]asplit=${channels}${labels};${labels}amerge=inputs=${channels}`,
    '-c:a',
    'pcm_s16le',
    file,
  ]);
  return file;
}
