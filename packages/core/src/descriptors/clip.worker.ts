// Worker-thread entry of ClipAnalysisPool: analyzes one clip at a time, off the caller's event loop.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { EarshotError } from '@earshot/common/errors';
import { Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import { analyzeClip } from './analyze-clip.ts';
import type { ClipReply, ClipRequest, ClipWorkerData } from './clip-protocol.ts';

const { priority, ffmpeg: paths } = (workerData ?? {}) as ClipWorkerData;
const ffmpeg = new Ffmpeg(paths);
if (priority !== undefined) {
  // On Linux a nice value belongs to a thread, and pid 0 names the calling one: only this
  // analysis thread steps back, not the event loop that serves requests. Elsewhere (or without
  // the right to) it is left as it is: a slower answer for other requests, never a failure.
  try {
    os.setPriority(0, priority);
  } catch {}
}

parentPort?.on('message', async (request: ClipRequest) => {
  let reply: ClipReply;
  try {
    reply = {
      id: request.id,
      ok: true,
      result: await analyzeClip(request.file, { ...request.options, ffmpeg }),
    };
  } catch (err) {
    const error = err as Error;
    reply = {
      id: request.id,
      ok: false,
      error: {
        message: error.message,
        // Bad audio is the caller's fault (400) and says why; anything else stays a 500.
        code: err instanceof EarshotError ? err.code : undefined,
        status: err instanceof EarshotError ? err.status : undefined,
      },
    };
  }
  parentPort?.postMessage(reply);
});
