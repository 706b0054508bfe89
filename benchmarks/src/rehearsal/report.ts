// The rehearsal's report: the table it prints, the JSON of `--json`, benchmarks/results/cluster.md.

import { describeCores, type RehearsalFigures } from './cluster.ts';

interface Row {
  check: string;
  target: string;
  measured: string;
  met: boolean | null;
}

export function rows(f: RehearsalFigures): Row[] {
  const s = (x: number | null, unit = ' s') => (x === null ? 'not measured' : `${x}${unit}`);
  return [
    { check: 'lost uploads', target: '0', measured: String(f.lost), met: f.lost === 0 },
    {
      check: 'uploads processed twice',
      target: '0',
      measured: String(f.duplicated),
      met: f.duplicated === 0,
    },
    { check: 'stuck jobs / unfinished sounds', target: '0', measured: String(f.stuck), met: f.stuck === 0 },
    {
      check: 'errors outside the killed host’s in-flight requests',
      target: '0',
      measured: `${f.errors_outside_killed} (in flight on the killed host: ${f.errors_in_killed})`,
      met: f.errors_outside_killed === 0,
    },
    {
      check: 'read throughput, two API hosts ÷ one',
      target: '≥ 1.6',
      measured: `${f.read_scaling} (${f.one_host_rps} → ${f.two_hosts_rps} req/s)`,
      met: f.read_scaling >= 1.6,
    },
    {
      check: 'restarted API host ready (similarity loaded)',
      target: '≤ 15 s',
      measured: `${s(f.api_recovery_s)}${f.api_restart_cpu_s === null ? '' : ` (${f.api_restart_cpu_s} CPU-s)`}`,
      met: f.api_recovery_s === null ? null : f.api_recovery_s <= 15,
    },
    {
      check: 'killed worker host’s jobs taken over',
      target: '≤ 60 s',
      measured: s(f.worker_takeover_s),
      met: f.worker_takeover_s === null ? null : f.worker_takeover_s <= 60,
    },
    {
      check: 'a 60-per-minute key through both hosts',
      target: '60',
      measured: String(f.rate_limit_total),
      met: f.rate_limit_total === 60,
    },
    {
      check: 'sign-in session and OAuth2 code on the other host',
      target: 'yes',
      measured: `${f.sessions_across_hosts ? 'yes' : 'no'} / ${f.oauth2_codes_across_hosts ? 'yes' : 'no'}`,
      met: f.sessions_across_hosts && f.oauth2_codes_across_hosts,
    },
    {
      check: 'a write on one host read on the other',
      target: 'within the cache bound',
      measured: `${f.write_visible_s} s`,
      met: null,
    },
    {
      check: 'every host’s similarity index has every new sound',
      target: '≤ 5 s',
      measured: `slowest ${s(f.similarity_lag_max_s)}, ${f.similarity_late} late or missing`,
      met: f.similarity_late === 0,
    },
  ];
}

export function passed(f: RehearsalFigures): boolean {
  return rows(f).every((r) => r.met !== false);
}

export function table(f: RehearsalFigures): string {
  const all = rows(f);
  const lines = ['| check | target | measured | met |', '| --- | --- | --- | --- |'];
  for (const r of all)
    lines.push(
      `| ${r.check} | ${r.target} | ${r.measured} | ${r.met === null ? '–' : r.met ? 'yes' : 'NO'} |`,
    );
  return lines.join('\n');
}

export function details(f: RehearsalFigures): string {
  return [
    `- ${f.sounds} sounds, ${f.minutes} min of mixed load: ${f.requests} requests (${f.requests_per_s}/s), ${f.uploads_accepted} uploads accepted, ${f.uploads_processed} processed`,
    `- faults: ${f.faults.join('; ')}`,
    `- answers per 5 s through the scenario: ${f.answers_per_5s.join(' ')}; requests not sent because 64 were waiting: ${f.requests_dropped}`,
    `- CPU budget: ${f.cpu_budget ? `${f.cpu_budget.host_cores} core for each API and worker host (cgroup ${f.cpu_budget.cgroup} quota); PostgreSQL, Redis, haproxy and wrk not limited; each host's group weighs as ${f.cpu_budget.weight} processes against the machine's other work` : 'none (every host on the whole machine)'}`,
    `- throughput rounds (hosts in rotation: requests/s): ${f.scaling_rounds.map((r) => `${r.hosts}: ${r.rps}`).join(', ')}; first start of the two API hosts (with the two worker hosts, at once): ready after ${f.api_first_start_s.join(' s and ')} s`,
    ...f.scaling_rounds
      .filter((r) => r.cores)
      .map(
        (r, i) =>
          `  - round ${i + 1}, ${r.hosts} host${r.hosts > 1 ? 's' : ''}, ${r.rps} req/s${r.cores ? `, API CPU per answer ${((1000 * r.cores.api) / Math.max(1, r.rps)).toFixed(2)} ms, cores used: ${describeCores(r.cores)}` : ''}`,
      ),
    `- the restarted API host, from its restart: ${f.restart_timeline.join('; ')}`,
    `- API CPU per read through the balancer: ${f.api_cpu_ms_per_request} ms; worker CPU per sound processed: ${f.worker_cpu_s_per_sound ?? '–'} s; largest API process ${f.api_process_rss_mb} MB`,
    `- load average (1, 5, 15 min): ${f.load_average.start.join(', ')} at the start, ${f.load_average.end.join(', ')} after the scenario (2 cores)`,
    ...(f.problems.length ? [`- problems: ${f.problems.join('; ')}`] : []),
  ].join('\n');
}
