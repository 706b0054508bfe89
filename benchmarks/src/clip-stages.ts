// Where an audio_file request's time goes on the server, from the running totals its /metrics
// gives (the clip pool's stages and the content-search route's request durations): read before
// and after a load, the difference divided by the clips answered is a mean per clip.

export interface ClipStageTotals {
  clips: number;
  /** Seconds by stage: wait, decode, analysis, thread. */
  stages: Record<string, number>;
  /** POST /apiv2/search/content/ answers (every status) and their summed seconds. */
  requests: number;
  requestSeconds: number;
}

const CONTENT_ROUTE = 'route="/apiv2/search/content/"';

/** Sum of the samples named `name` whose labels contain every one of `labels`. */
function sumOf(lines: string[], name: string, labels: string[] = []): number {
  let total = 0;
  for (const line of lines) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length, line.lastIndexOf(' '));
    if (!labels.every((l) => labelText.includes(l))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

export async function readClipStages(origin: string): Promise<ClipStageTotals> {
  const res = await fetch(`${origin}/metrics`);
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  const lines = (await res.text()).split('\n');
  const stages: Record<string, number> = {};
  for (const stage of ['wait', 'decode', 'analysis', 'thread']) {
    stages[stage] = sumOf(lines, 'earshot_clip_stage_seconds_total', [`stage="${stage}"`]);
  }
  const post = [CONTENT_ROUTE, 'method="POST"'];
  return {
    clips: sumOf(lines, 'earshot_clips_total'),
    stages,
    requests: sumOf(lines, 'earshot_http_request_duration_seconds_count', post),
    requestSeconds: sumOf(lines, 'earshot_http_request_duration_seconds_sum', post),
  };
}

/**
 * Mean milliseconds per clip by stage between two readings, as a markdown table. The rest of the
 * request (receiving the multipart body, the index query, the page's SQL, the JSON, and waiting for
 * the event loop) is the request's mean less the pool's wait and thread time.
 */
export function stageTable(before: ClipStageTotals, after: ClipStageTotals, clientMean: number): string {
  const clips = after.clips - before.clips;
  const per = (stage: string) => ((after.stages[stage] - before.stages[stage]) * 1000) / clips;
  const requests = after.requests - before.requests;
  const request = ((after.requestSeconds - before.requestSeconds) * 1000) / requests;
  const wait = per('wait');
  const decode = per('decode');
  const analysis = per('analysis');
  const thread = per('thread');
  const rows: Array<[string, number]> = [
    ['waiting for a clip thread (the pool queue, arrival order)', wait],
    ['decode, in the clip thread', decode],
    ['analysis, in the clip thread', analysis],
    ['to and from the thread (messages, scheduling)', thread - decode - analysis],
    [
      'the rest on the event loop: multipart receive, index query, page SQL, JSON, waiting for the loop',
      request - wait - thread,
    ],
    ['whole request as the server times it', request],
    ['whole request as the clients time it (mean)', clientMean],
  ];
  return [
    `| stage (${clips} clips, ${requests} requests in the 10-client row) | mean ms per clip |`,
    '|---|---:|',
    ...rows.map(([name, ms]) => `| ${name} | ${Number.isFinite(ms) ? ms.toFixed(1) : '—'} |`),
  ].join('\n');
}
