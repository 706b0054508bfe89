// The multi-host rehearsal (issue 34): a cluster of network namespaces on this machine (PostgreSQL,
// Redis, two API hosts, two worker hosts, haproxy), started with deploy/'s commands and environment
// files, a realistic mixed load through the balancer while hosts are killed and cut off, and the
// checks the issue lists. `npx earshot rehearse cluster --minutes N [--json FILE]`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bearerGrant, WEB_PASSWORD } from '@earshot/api/testing';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { createApiCredential, createUser } from '@earshot/services';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ensureApiBenchCatalogue } from '../api-bench-catalogue.ts';
import { uploadSources } from '../upload-sources.ts';
import { wrkLoad } from '../wrk-load.ts';
import { checkUploads, waitForUploads } from './checks.ts';
import { CpuGroups, cpuBudgetsPossible, machineCpuS, removeAbandonedGroups } from './cpu-budget.ts';
import { crossHostChecks } from './cross-host.ts';
import { HostCpu, namespaceCpuSeconds, namespaceProcesses, nodeRssMb } from './host-stats.ts';
import {
  ensureHaproxy,
  type HostProcess,
  haproxyCommand,
  haproxyConfig,
  killHost,
  LB_PORT,
  startEarshotHost,
  startEarshotHostCommand,
  startHaproxy,
  startPostgres,
  startRedis,
  waitFor,
} from './hosts.ts';
import { answersPerWindow, isError, MixedLoad } from './load.ts';
import {
  createNetwork,
  HOSTS,
  type HostName,
  type Network,
  namespacesPossible,
  removeAbandonedRuns,
  runIsAlive,
  setCable,
  teardownNetwork,
} from './network.ts';
import { drawReadMix, mixedPaths } from './read-mix.ts';
import { describeTimeline, followRestart } from './restart-timeline.ts';
import { SimilarityWatch } from './similarity-watch.ts';
import { takeoverAfterKill } from './takeover.ts';

/**
 * Each API and worker host's CPU budget unless told: half a core, so that two API hosts (one core)
 * leave the machine's second core to PostgreSQL, haproxy and the load generator of the throughput rounds.
 */
export const DEFAULT_HOST_CPUS = 0.5;
const GROUP_WEIGHT = 8;

export interface RehearsalOptions {
  /** Length of the mixed load with the faults. */
  minutes: number;
  /** Synthetic sounds in the catalogue before the uploads. */
  sounds: number;
  /** One fault (an API host killed) instead of all four: the shortened rehearsal CI runs. */
  short: boolean;
  /** Seconds of each one-host / two-host throughput round (two rounds of each). */
  scalingRoundS: number;
  /**
   * Cores each API and worker host may use (a cgroup CPU quota), as if each were a machine of that
   * size; null = no budget, every host on the whole machine. Ignored (said) where cgroups cannot be made.
   */
  hostCpus: number | null;
  say: (line: string) => void;
}

/** Cores a part of the cluster used over a throughput round (CPU seconds ÷ the round's seconds). */
export interface RoundCores {
  api: number;
  db: number;
  redis: number;
  lb: number;
  workers: number;
  /** The load generator: wrk and the rehearsal's own process that starts it. */
  load: number;
  /** The rest of the machine's busy time: the rehearsal's driver and everything else running here. */
  other: number;
  /** Share of the round the API hosts' processes waited on their quota (throttled ÷ round). */
  apiThrottled: number;
}

/** The figures of one run (`--json`), named as issue 34 names them. */
export interface RehearsalFigures {
  lost: number;
  duplicated: number;
  stuck: number;
  errors_outside_killed: number;
  errors_in_killed: number;
  read_scaling: number;
  api_recovery_s: number | null;
  /** CPU seconds the restarted API host's processes used until it was ready. */
  api_restart_cpu_s: number | null;
  worker_takeover_s: number | null;
  rate_limit_total: number;
  sessions_across_hosts: boolean;
  oauth2_codes_across_hosts: boolean;
  write_visible_s: number;
  similarity_lag_max_s: number | null;
  similarity_late: number;
  /** (sound, host) pairs where a new public sound never reached the host's index. */
  similarity_missing: number;
  uploads_accepted: number;
  uploads_processed: number;
  requests: number;
  requests_per_s: number;
  /** Answers per 5 s window through the scenario, and requests not sent because 64 were waiting. */
  answers_per_5s: number[];
  requests_dropped: number;
  one_host_rps: number;
  two_hosts_rps: number;
  /** Each throughput round in its order: hosts in rotation, requests per second, cores by part. */
  scaling_rounds: { hosts: number; rps: number; cores: RoundCores | null }[];
  /**
   * The CPU quota of each API and worker host, cores, how it was set, and each host's weight against
   * the machine's other processes (in processes); null = none.
   */
  cpu_budget: { host_cores: number; cgroup: 'v1' | 'v2'; weight: number } | null;
  /** The restarted API host's steps to ready, one line each. */
  restart_timeline: string[];
  /** Seconds from the first start of each API host to its /ready. */
  api_first_start_s: number[];
  api_cpu_ms_per_request: number;
  worker_cpu_s_per_sound: number | null;
  api_process_rss_mb: number;
  sounds: number;
  minutes: number;
  faults: string[];
  load_average: { start: number[]; end: number[] };
  problems: string[];
}

/** The run's temporary folders and processes, removed by `cleanup` whatever happened. */
interface Run {
  network?: Network;
  groups?: CpuGroups;
  dir: string;
  processes: HostProcess[];
}

const logger = createLogger('warn');

function loadAverage(): number[] {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}

/** Where each host's output is left after a run (the last 64 kB of each process), for a post-mortem. */
export const LOGS_DIR = path.join(os.tmpdir(), 'earshot-rehearsal-logs');

export function cleanup(run: Run): void {
  fs.rmSync(LOGS_DIR, { recursive: true, force: true });
  fs.mkdirSync(LOGS_DIR, { recursive: true });
  run.processes.forEach((p, i) => {
    fs.writeFileSync(path.join(LOGS_DIR, `${String(i).padStart(2, '0')}-${p.host}.log`), p.output());
  });
  run.processes = [];
  if (run.network) teardownNetwork(run.network);
  run.network = undefined;
  run.groups?.remove();
  run.groups = undefined;
  fs.rmSync(run.dir, { recursive: true, force: true });
}

/** Whether the rehearsal can run here, and why not when it cannot. */
export function rehearsalPossible(): { ok: true } | { ok: false; reason: string } {
  return namespacesPossible();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function rehearseCluster(options: RehearsalOptions): Promise<RehearsalFigures> {
  const possible = namespacesPossible();
  if (!possible.ok) throw new Error(`the cluster rehearsal cannot run here: ${possible.reason}`);
  const { say } = options;
  const run: Run = { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-rehearsal-')), processes: [] };
  const onSignal = (signal: NodeJS.Signals) => {
    say(`\n${signal}: tearing the cluster down`);
    cleanup(run);
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await rehearse(options, run);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    say(
      `teardown: killing every host process, removing the namespaces, the bridge and the folders (host logs: ${LOGS_DIR})`,
    );
    cleanup(run);
  }
}

async function rehearse(options: RehearsalOptions, run: Run): Promise<RehearsalFigures> {
  const { say, sounds } = options;
  const loadAtStart = loadAverage();
  const abandoned = removeAbandonedRuns();
  abandoned.push(...removeAbandonedGroups(runIsAlive));
  if (abandoned.length > 0) say(`removed the leftovers of earlier runs: ${abandoned.join(', ')}`);
  ensureHaproxy(say);
  // Before any host starts: generating the fixtures (when they are missing) takes a while.
  const uploads = await uploadSources(6);
  const cliBuilt = path.join(path.dirname(new URL(import.meta.url).pathname), '../../../cli/dist/main.js');
  if (!fs.existsSync(cliBuilt)) throw new Error('the CLI is not built (npm run build): the hosts run dist/');

  const network = createNetwork();
  run.network = network;
  const at = (host: HostName) => network.address(host);
  say(
    `[1/7] network ${network.subnet}: bridge ${network.id}, 7 hosts (db ${at('db')}, redis ${at('redis')}, lb ${at('lb')}, api ${at('api1')} ${at('api2')}, workers ${at('worker1')} ${at('worker2')})`,
  );
  // Every host in a CPU group of its own (its CPU counted exactly); API and worker hosts limited to
  // their budget, as machines of that size. PostgreSQL, Redis and haproxy are the shared services:
  // counted, not limited.
  const budget = options.hostCpus === null ? null : cpuBudgetsPossible();
  let cpuBudget: RehearsalFigures['cpu_budget'] = null;
  if (budget && !budget.ok) say(`  no CPU budgets: ${budget.reason}; every host uses the whole machine`);
  if (budget?.ok && options.hostCpus !== null) {
    const groups = new CpuGroups(network.id, [...Object.keys(HOSTS), 'load']);
    run.groups = groups;
    network.inCpuGroup = (host, command) => groups.command(host, command);
    for (const host of ['api1', 'api2', 'worker1', 'worker2'] as const) groups.limit(host, options.hostCpus);
    // Each host as much weight as the machine's other processes put together would have at load 8:
    // the budgets and the shared services are the rehearsal's, whatever else runs here.
    for (const host of Object.keys(HOSTS)) groups.weigh(host, GROUP_WEIGHT);
    // The load generator is a client machine: this process (the mixed load, the checks) and the wrk it starts.
    groups.weigh('load', GROUP_WEIGHT);
    groups.moveSelf('load');
    cpuBudget = { host_cores: options.hostCpus, cgroup: budget.kind, weight: GROUP_WEIGHT };
    say(
      `  CPU budgets (cgroup ${budget.kind}): ${options.hostCpus} core for each API and worker host; db, redis, lb counted, not limited; every host weighs ${GROUP_WEIGHT} processes against the machine's other work`,
    );
  }
  const groups = run.groups;

  for (const sub of ['pg', 'redis', 'shared', 'lb', 'work']) fs.mkdirSync(path.join(run.dir, sub));
  fs.chmodSync(run.dir, 0o755);
  const shared = path.join(run.dir, 'shared');
  run.processes.push(startPostgres(network, path.join(run.dir, 'pg')));
  run.processes.push(startRedis(network, path.join(run.dir, 'redis')));
  const adminUrl = `postgres://postgres@${at('db')}:5432/postgres`;
  await waitFor('PostgreSQL on the db host', 60_000, async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.end();
    return true;
  });
  const redis = new Redis({ host: at('redis'), port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
  await waitFor('Redis on the redis host', 30_000, async () => {
    if (redis.status !== 'ready') await redis.connect().catch(() => {});
    return (await redis.ping()) === 'PONG';
  });

  say(`[2/7] catalogue: ${sounds} synthetic sounds in the db host's database "earshot"`);
  const previousDbUrl = process.env.DATABASE_URL;
  process.env.DATABASE_URL = adminUrl;
  let apiKey: string;
  try {
    apiKey = await ensureApiBenchCatalogue(sounds, false, 'earshot_rehearsal');
  } finally {
    if (previousDbUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previousDbUrl;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // deploy/env/common.env's DATABASE_URL: role earshot, database earshot.
  await admin.query(`alter database earshot_rehearsal_${sounds} rename to earshot`);
  await admin.query('create role earshot login superuser');
  await admin.end();
  const dbUrl = `postgres://earshot@${at('db')}:5432/earshot`;
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const catalogue = await openCatalogue({
    config: loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: shared }),
    logger,
    role: 'command',
  });

  try {
    say('[3/7] hosts: `deploy/run api` ×2, `deploy/run worker` ×2, haproxy with deploy/haproxy/haproxy.cfg');
    const overrides = {
      DATA_DIR: shared,
      PUBLIC_URL: `http://earshot-lb:${LB_PORT}`,
      OAUTH2_HTTPS_ONLY: '0',
      LOG_LEVEL: 'warn',
      // Which process answered: the restart's timeline follows each one (benchmarks only).
      EARSHOT_SERVED_BY_HEADER: '1',
    };
    const apiOrigin = (host: HostName) => `http://${at(host)}:8000`;
    const lbOrigin = `http://${at('lb')}:${LB_PORT}`;
    // Ready means every process of the host: two answers in a row on fresh connections, which the
    // host's cluster deals out in turn (one process answering while the other still loads is not ready).
    const ready = async (origin: string) => {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${origin}/ready`, { headers: { Connection: 'close' } });
        await res.text();
        if (res.status !== 200) return false;
      }
      return true;
    };
    const cpu = {
      api1: new HostCpu(network.namespace('api1')),
      api2: new HostCpu(network.namespace('api2')),
      worker1: new HostCpu(network.namespace('worker1')),
      worker2: new HostCpu(network.namespace('worker2')),
    };
    const startHost = (host: 'api1' | 'api2' | 'worker1' | 'worker2', logLevel = overrides.LOG_LEVEL) => {
      const p = startEarshotHost(network, host, host.startsWith('api') ? 'api' : 'worker', {
        ...overrides,
        LOG_LEVEL: logLevel,
      });
      run.processes.push(p);
      return p;
    };
    // As an operator would before starting the API hosts: a similarity snapshot to start from.
    const snapshot = startEarshotHostCommand(network, 'api1', ['index', 'snapshot'], overrides);
    run.processes.push(snapshot);
    const snapshotCode = await new Promise<number | null>((resolve) => snapshot.child.once('exit', resolve));
    if (snapshotCode !== 0)
      throw new Error(`earshot index snapshot: exit ${snapshotCode}\n${snapshot.output()}`);
    const hostProcs: Partial<Record<HostName, HostProcess>> = {};
    const hostsStartedAt = Date.now();
    for (const host of ['api1', 'api2', 'worker1', 'worker2'] as const) hostProcs[host] = startHost(host);
    const firstStarts: number[] = [];
    for (const host of ['api1', 'api2'] as const) {
      await waitFor(`API host ${host} ready`, 180_000, async () => {
        if (hostProcs[host]?.child.exitCode !== null) {
          throw new Error(`${host} exited: ${hostProcs[host]?.output().slice(-2000)}`);
        }
        return ready(apiOrigin(host));
      });
      const sinceStart = (Date.now() - hostsStartedAt) / 1000;
      firstStarts.push(Math.round(sinceStart * 10) / 10);
      say(
        `  ${host} ready (database, Redis, similarity index) ${sinceStart.toFixed(1)} s after the four hosts started`,
      );
    }
    const lbConfig = haproxyConfig(network, path.join(run.dir, 'lb'));
    run.processes.push(startHaproxy(network, lbConfig));
    await waitFor('the balancer', 30_000, () => ready(lbOrigin));
    const lbSocket = path.join(run.dir, 'lb', 'haproxy.sock');

    say(
      '[4/7] accounts: a trusted uploader with an OAuth2 token, an unlimited read key; sessions, codes, writes and rate limits across hosts',
    );
    await createUser(catalogue.db, {
      username: 'rehearsal-uploader',
      email: 'uploader@rehearsal.example',
      password: WEB_PASSWORD,
      isTrusted: true, // their sounds skip moderation: approved at once, so they join the similarity index
    });
    const bearer = (
      await bearerGrant(catalogue.db, lbOrigin, 'rehearsal-uploader', {
        scope: 'read write',
        level: 'unlimited',
      })
    ).accessToken;
    const across = await crossHostChecks({
      db: catalogue.db,
      origins: [apiOrigin('api1'), apiOrigin('api2')],
      username: 'rehearsal-uploader',
      bearer,
      apiKey,
      createLimited: async () =>
        (
          await createApiCredential(catalogue.db, {
            username: 'rehearsal-uploader',
            name: 'Rehearsal standard key',
            redirectUri: 'https://app.example/callback',
            level: 'standard',
          })
        ).client_secret,
    });
    say(
      `  sessions across hosts: ${across.sessions ? 'yes' : 'NO'}; OAuth2 code across hosts: ${across.codes ? 'yes' : 'NO'}; ` +
        `a comment on api1 seen on api2 after ${across.writeVisibleS.toFixed(2)} s; a 60-per-minute key got ${across.rateLimitTotal} of 120 through both hosts`,
    );

    say(
      `[5/7] read throughput through the balancer, one API host against two (wrk, ${options.scalingRoundS} s rounds)`,
    );
    const readMix = await drawReadMix(dbUrl, sounds, 4000);
    const wrkPaths = mixedPaths(readMix, 20_000);
    const rounds: {
      hosts: 1 | 2;
      rps: number;
      apiCpuS: number;
      requests: number;
      cores: RoundCores | null;
    }[] = [];
    const partsCpu = () => {
      const g = groups;
      const usage = (host: HostName) => g?.usageS(host) ?? 0;
      return {
        api: usage('api1') + usage('api2'),
        db: usage('db'),
        redis: usage('redis'),
        lb: usage('lb'),
        workers: usage('worker1') + usage('worker2'),
        load: g?.usageS('load') ?? 0,
        apiThrottled: (g?.throttledS('api1') ?? 0) + (g?.throttledS('api2') ?? 0),
        machine: machineCpuS().busy,
        at: Date.now(),
      };
    };
    // Three rounds' time on both hosts warms caches and compiled code (with one round, the first
    // one-host round answered at half the rate of the last), then one-two-two-one, so that a drift
    // of the machine's other load over the rounds weighs on both sides alike.
    const readRound = (durationS = options.scalingRoundS) =>
      wrkLoad({
        origin: lbOrigin,
        paths: wrkPaths,
        connections: 16,
        durationS,
        headers: { Authorization: `Token ${apiKey}` },
      });
    await readRound(3 * options.scalingRoundS);
    for (const hosts of [1, 2, 2, 1] as const) {
      await haproxyCommand(lbSocket, `${hosts === 1 ? 'disable' : 'enable'} server api/api2`);
      await sleep(500);
      const cpuBefore = cpu.api1.sample() + cpu.api2.sample();
      const partsBefore = partsCpu();
      const r = await readRound();
      const partsAfter = partsCpu();
      const apiCpuS = cpu.api1.sample() + cpu.api2.sample() - cpuBefore;
      const cores = groups ? roundCores(partsBefore, partsAfter) : null;
      rounds.push({ hosts, rps: r.rps, apiCpuS, requests: r.total, cores });
      say(
        `  ${hosts} host${hosts > 1 ? 's' : ''}: ${r.rps.toFixed(0)} req/s (p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.non2xx} non-2xx, ${r.errors} errors)${cores ? `; cores: ${describeCores(cores)}` : ''}`,
      );
    }
    await haproxyCommand(lbSocket, 'enable server api/api2');
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    const oneRps = median(rounds.filter((r) => r.hosts === 1).map((r) => r.rps));
    const twoRps = median(rounds.filter((r) => r.hosts === 2).map((r) => r.rps));
    const apiCpuMsPerRequest =
      (1000 * rounds.reduce((a, r) => a + r.apiCpuS, 0)) /
      Math.max(
        1,
        rounds.reduce((a, r) => a + r.requests, 0),
      );

    const scenarioS = Math.round(options.minutes * 60);
    const faults: string[] = [];
    say(
      `[6/7] scenario: ${scenarioS} s of mixed load through the balancer (reads, searches, similar sounds, uploads, ratings, comments), ${options.short ? 'one API host killed' : 'an API host killed, a worker host killed, a worker host cut off 30 s'}`,
    );
    const load = new MixedLoad({
      origin: lbOrigin,
      credentials: { apiKey, bearer },
      rate: 30,
      uploadEveryS: 4,
      readPaths: readMix,
      sounds,
      workDir: path.join(run.dir, 'work'),
      uploads,
    });
    const watch = new SimilarityWatch(
      db,
      [
        { name: 'api1', origin: apiOrigin('api1') },
        { name: 'api2', origin: apiOrigin('api2') },
      ],
      apiKey,
      () => load.accepted,
    );
    const startedAt = Date.now();
    /** When an API host's processes were being killed: from the first signal to the last one dead. */
    const kills: { from: number; to: number }[] = [];
    let apiRecoveryS: number | null = null;
    let apiRestartCpuS: number | null = null;
    let restartTimeline: string[] = [];
    let takeover: Promise<number | null> = Promise.resolve(null);
    const sampler = setInterval(() => {
      for (const c of Object.values(cpu)) c.sample();
    }, 2000);
    const progress = setInterval(() => {
      const elapsed = Math.round((Date.now() - startedAt) / 1000);
      const errors = load.records.filter(isError).length;
      say(
        `  t=${elapsed}/${scenarioS} s  requests ${load.records.length}  errors ${errors}  uploads accepted ${load.accepted.length}  ${faults.at(-1) ?? ''}`,
      );
    }, 10_000);
    load.start();
    watch.start();
    try {
      const waitUntil = async (share: number) => {
        const t = startedAt + share * scenarioS * 1000;
        if (t > Date.now()) await sleep(t - Date.now());
      };

      // An API host loses power: every process of it killed, restarted 5 s later.
      await waitUntil(options.short ? 0.25 : 0.15);
      cpu.api1.sample();
      const killFrom = Date.now();
      const killedApi = killHost(network, 'api1');
      kills.push({ from: killFrom, to: Date.now() });
      cpu.api1.restarted();
      watch.down('api1');
      faults.push(
        `api1: kill -9 of its ${killedApi} processes (t=${((killFrom - startedAt) / 1000).toFixed(1)}–${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
      );
      await sleep(5000);
      const restartAt = Date.now();
      // At level info: its log says when each process had its similarity state loaded.
      const restarted = startHost('api1', 'info');
      hostProcs.api1 = restarted;
      const timeline = await followRestart(
        apiOrigin('api1'),
        restartAt,
        {
          cpu: () => ({
            cpuS: groups?.usageS('api1') ?? namespaceCpuSeconds(network.namespace('api1')),
            throttledS: groups?.throttledS('api1') ?? 0,
          }),
          log: restarted.child.stderr,
          output: restarted.output,
          exited: () => restarted.child.exitCode !== null,
          processes: () => namespaceProcesses(network.namespace('api1')),
        },
        120_000,
      );
      apiRecoveryS = timeline.readyS;
      restartTimeline = describeTimeline(timeline);
      // The CPU its processes spent to get there: the part of the wait the machine's other load does not stretch.
      apiRestartCpuS = timeline.steps.find((step) => step.what.startsWith('ready'))?.cpuS ?? null;
      cpu.api1.sample();
      watch.up('api1');
      faults.push(`api1: restarted, ready (similarity loaded) after ${apiRecoveryS.toFixed(1)} s`);

      if (!options.short) {
        // A worker host dies with a job in hand: taken over by the other once its lock expires.
        await waitUntil(0.4);
        const killed = await takeoverAfterKill(
          redis,
          () => {
            cpu.worker1.sample();
            const n = killHost(network, 'worker1');
            cpu.worker1.restarted();
            faults.push(`worker1: kill -9 of its ${n} processes`);
          },
          () => load.uploadNow(3),
        );
        takeover = killed.takeover;
        await sleep(5000);
        hostProcs.worker1 = startHost('worker1');
        faults.push('worker1: restarted');

        // A worker host's cable pulled for 30 s: its connections stall, then come back.
        await waitUntil(0.65);
        setCable(network, 'worker2', false);
        faults.push('worker2: network cut');
        await sleep(30_000);
        setCable(network, 'worker2', true);
        faults.push('worker2: network back after 30 s');
      }
      await waitUntil(1);
    } finally {
      await load.stop();
      clearInterval(progress);
    }
    const loadAtEnd = loadAverage();

    say('[7/7] checks: every accepted upload processed once, no job left, similarity on every host');
    const workerTakeoverS = await takeover;
    const states = await waitForUploads(db, load.accepted, 240_000, (open) => {
      if (open > 0) say(`  ${open} uploads still processing`);
    });
    await watch.settle(15_000);
    watch.stop();
    clearInterval(sampler);
    for (const c of Object.values(cpu)) c.sample();
    const outcome = await checkUploads(db, redis, shared, load.accepted, states);
    const errorRecords = load.records.filter(isError);
    // In flight on the killed host: sent before its last process was dead, failed after the first signal.
    const inKilled = errorRecords.filter((r) =>
      kills.some((k) => r.startedAt <= k.to && r.endedAt >= k.from),
    );
    const workerCpu = cpu.worker1.total() + cpu.worker2.total();
    const apiRss = [...nodeRssMb(network.namespace('api1')), ...nodeRssMb(network.namespace('api2'))];
    const lag = watch.lags();
    const figures: RehearsalFigures = {
      lost: outcome.lost,
      duplicated: outcome.duplicated,
      stuck: outcome.stuck,
      errors_outside_killed: errorRecords.length - inKilled.length,
      errors_in_killed: inKilled.length,
      read_scaling: Math.round((twoRps / oneRps) * 100) / 100,
      api_recovery_s: apiRecoveryS === null ? null : Math.round(apiRecoveryS * 10) / 10,
      api_restart_cpu_s: apiRestartCpuS === null ? null : Math.round(apiRestartCpuS * 10) / 10,
      worker_takeover_s: workerTakeoverS === null ? null : Math.round(workerTakeoverS * 10) / 10,
      rate_limit_total: across.rateLimitTotal,
      sessions_across_hosts: across.sessions,
      oauth2_codes_across_hosts: across.codes,
      write_visible_s: Math.round(across.writeVisibleS * 100) / 100,
      similarity_lag_max_s: lag.length ? Math.round(Math.max(...lag) * 10) / 10 : null,
      similarity_late: lag.filter((s) => s > 5).length + watch.missing(),
      similarity_missing: watch.missing(),
      uploads_accepted: load.accepted.length,
      uploads_processed: outcome.processed,
      requests: load.records.length,
      requests_per_s: Math.round((load.records.length / scenarioS) * 10) / 10,
      answers_per_5s: answersPerWindow(load.records, startedAt, startedAt + scenarioS * 1000, 5),
      requests_dropped: load.dropped,
      one_host_rps: Math.round(oneRps),
      scaling_rounds: rounds.map((r) => ({ hosts: r.hosts, rps: Math.round(r.rps), cores: r.cores })),
      cpu_budget: cpuBudget,
      restart_timeline: restartTimeline,
      api_first_start_s: firstStarts,
      two_hosts_rps: Math.round(twoRps),
      api_cpu_ms_per_request: Math.round(apiCpuMsPerRequest * 100) / 100,
      worker_cpu_s_per_sound: outcome.processed
        ? Math.round((workerCpu / outcome.processed) * 100) / 100
        : null,
      api_process_rss_mb: Math.round(Math.max(0, ...apiRss)),
      sounds,
      minutes: options.minutes,
      faults,
      load_average: { start: loadAtStart, end: loadAtEnd },
      problems: [
        ...outcome.problems,
        ...watch.late(5).slice(0, 5),
        ...errorRecords
          .filter((r) => !inKilled.includes(r))
          .slice(0, 5)
          .map(
            (r) =>
              `${r.kind}: ${r.status || 'no answer'} at t=${((r.startedAt - startedAt) / 1000).toFixed(1)} s`,
          ),
      ],
    };
    return figures;
  } finally {
    await catalogue.close().catch(() => {});
    await db.end().catch(() => {});
    redis.disconnect();
  }
}

type PartsCpu = Omit<RoundCores, 'other'> & { machine: number; at: number };

/** Cores each part used between two readings. */
function roundCores(before: PartsCpu, after: PartsCpu): RoundCores {
  const seconds = (after.at - before.at) / 1000;
  const c = (x: number) => Math.round((x / seconds) * 100) / 100;
  const d = (k: keyof PartsCpu) => after[k] - before[k];
  const ours = d('api') + d('db') + d('redis') + d('lb') + d('workers') + d('load');
  return {
    api: c(d('api')),
    db: c(d('db')),
    redis: c(d('redis')),
    lb: c(d('lb')),
    workers: c(d('workers')),
    load: c(d('load')),
    other: c(Math.max(0, d('machine') - ours)),
    apiThrottled: c(d('apiThrottled')),
  };
}

export function describeCores(c: RoundCores): string {
  return `API ${c.api} (waiting on quota ${c.apiThrottled}), PostgreSQL ${c.db}, Redis ${c.redis}, haproxy ${c.lb}, load generator (wrk, the driver) ${c.load}, workers ${c.workers}, rest of the machine ${c.other}`;
}
