/**
 * A process for the parent-death test: starts an ffmpeg that runs for a minute through the one
 * ffmpeg wrapper, says "started" on stdout and waits to be killed.
 */
import { Ffmpeg } from '../ffmpeg/ffmpeg.ts';

void new Ffmpeg()
  .run(
    'ffmpeg',
    ['-hide_banner', '-re', '-f', 'lavfi', '-i', 'anullsrc=r=8000', '-t', '60', '-f', 'null', '-'],
    {
      timeoutMs: 120_000,
    },
  )
  .catch(() => {});
setTimeout(() => process.stdout.write('started\n'), 500);
