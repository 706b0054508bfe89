// Worker-thread entry of ClipAnalysisPool: analyzes one clip at a time, off the caller's event loop.
import { parentPort } from 'node:worker_threads';
import { EarshotError } from '@earshot/common';
import { analyzeClip } from './analyze-clip.ts';
import type { ClipReply, ClipRequest } from './clip-protocol.ts';

parentPort?.on('message', async (request: ClipRequest) => {
  let reply: ClipReply;
  try {
    reply = { id: request.id, ok: true, result: await analyzeClip(request.file, request.options) };
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
