import { fixture } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { FfmpegNotFoundError } from '../ffmpeg/errors.ts';
import { Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import { analyzeFile } from './analyze-file.ts';

// An Ffmpeg whose ffprobe cannot be found: whatever still works did not need ffprobe.
const withoutFfprobe = () => new Ffmpeg({ ffprobePath: '/nonexistent/ffprobe' });

describe('analyzeFile', () => {
  it('reads a plain PCM file’s streams from its header: no ffprobe, the same analysis', async () => {
    for (const name of ['sine-a4', 'fmt-aiff-24']) {
      const [fromHeader, fromFfprobe] = await Promise.all([
        analyzeFile(fixture(name), { ffmpeg: withoutFfprobe() }),
        analyzeFile(fixture(name)),
      ]);
      expect(fromHeader.variantB, name).toEqual(fromFfprobe.variantB);
    }
  });

  it('asks ffprobe about a compressed file', async () => {
    const error = await analyzeFile(fixture('fmt-mp3-mono-48k'), { ffmpeg: withoutFfprobe() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FfmpegNotFoundError);
  });
});
