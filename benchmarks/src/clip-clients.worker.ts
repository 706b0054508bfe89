// The example bench's clip clients, in a worker thread of the bench process: their uploads and
// JSON parsing then run on their own event loop, not on the one autocannon times the other
// requests on. Sharing one loop stalled it by up to 100 ms while clips were posted (measured with
// monitorEventLoopDelay in the bench process: 11 ms alone, 100 ms with the clip clients), which the
// bench then counted as the server's latency for the other requests.
import { parentPort, workerData } from 'node:worker_threads';
import type { ClipClientsJob, ClipClientsResult } from './clip-clients.ts';

const { origin, key, clip, clients, seconds } = workerData as ClipClientsJob;
const latencies: number[] = [];
let failed = 0;
const end = Date.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (Date.now() < end) {
      const form = new FormData();
      form.append('audio_file', new Blob([clip]), 'clip.mp3');
      form.append('fields', 'id,name');
      const started = performance.now();
      const res = await fetch(`${origin}/apiv2/search/content/`, {
        method: 'POST',
        body: form,
        headers: { Authorization: `Token ${key}` },
      });
      const body = (await res.json()) as { results?: unknown[] };
      if (res.status === 200 && body.results?.length) latencies.push(performance.now() - started);
      else failed++;
    }
  }),
);
const result: ClipClientsResult = { latencies, failed };
parentPort?.postMessage(result);
