import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '@earshot/common';

/** What a worker tells its primary, and what the primary tells a worker (node:cluster's IPC channel). */
export type WorkerMessage =
  | { type: 'serving'; origin: string }
  | { type: 'stopped accepting' }
  /** The worker's own readiness (its similarity indexes loaded). */
  | { type: 'ready' };
export type PrimaryMessage =
  | { type: 'stop accepting' }
  | { type: 'drain' }
  /** Whether every worker of the host is ready: a balancer checking /ready sends traffic only then. */
  | { type: 'host ready'; ready: boolean };

/** How long the primary waits for every worker to have stopped accepting before it drains them anyway. */
const STOP_ACCEPTING_WAIT_MS = 2_000;

export interface Supervisor {
  /** Resolves with the origin once every first worker serves; rejects when one dies before it does. */
  serving: Promise<string>;
  /**
   * Tells every worker to stop accepting, and once all have, to drain (each one's graceful
   * shutdown); waits for them to exit (after `graceMs` the rest are killed) and resolves true when
   * every worker exited 0. In two steps because the port stays open while any worker listens: a
   * worker that answered `Connection: close` while another still listened would send its clients
   * to reconnect into a port about to close, and the connections the primary holds for a worker
   * when the last one stops listening are reset.
   */
  drain(graceMs: number): Promise<boolean>;
  /** Process ids of the workers running now. */
  pids(): number[];
}

/** Restart delays after a worker dies: doubling from 0.5 s to 30 s; a worker that served a minute resets it. */
export const RESTART_BACKOFF = { firstMs: 500, maxMs: 30_000, stableMs: 60_000 };

/**
 * Forks `processes` cluster workers (this same command, which sees `cluster.isWorker`) and keeps
 * that many running: a worker that exits when it was not told to is replaced after a back-off, so
 * a crash loop (the database gone, say) does not spin the cores. All workers share the listening
 * port through the primary (node:cluster), which serves nothing itself.
 */
export function superviseWorkers(processes: number, logger: Logger): Supervisor {
  const startedAt = new Map<Worker, number>();
  let draining = false;
  let failures = 0;
  let resolveServing: (origin: string) => void = () => {};
  let rejectServing: (err: Error) => void = () => {};
  const serving = new Promise<string>((resolve, reject) => {
    resolveServing = resolve;
    rejectServing = reject;
  });
  let starting = true;
  let servingCount = 0;
  // The cluster deals connections to every listening worker: one still loading its similarity
  // indexes would answer similar sounds with a 503 once a balancer let traffic in on another's
  // /ready. So the host is ready when all of them are, and each worker's /ready says so.
  const ready = new Set<Worker>();
  let hostReady = false;
  const updateHostReady = () => {
    const now = !draining && ready.size === processes && [...ready].every((w) => startedAt.has(w));
    if (now === hostReady) return;
    hostReady = now;
    for (const worker of startedAt.keys()) tell(worker, { type: 'host ready', ready: now });
  };

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.on('message', (message: WorkerMessage) => {
      if (message?.type === 'ready') {
        ready.add(worker);
        updateHostReady();
      }
      if (message?.type !== 'serving' || !starting) return;
      servingCount++;
      if (servingCount === processes) {
        starting = false;
        resolveServing(message.origin);
      }
    });
    worker.on('exit', (code, signal) => {
      const lived = Date.now() - (startedAt.get(worker) ?? Date.now());
      startedAt.delete(worker);
      ready.delete(worker);
      if (draining) return;
      updateHostReady();
      if (starting) {
        // A worker that cannot start will not start the next time either (configuration, port).
        rejectServing(new Error(`an HTTP worker exited with ${signal ?? code} while starting`));
        return;
      }
      failures = lived >= RESTART_BACKOFF.stableMs ? 0 : failures + 1;
      const delay = Math.min(RESTART_BACKOFF.maxMs, RESTART_BACKOFF.firstMs * 2 ** Math.max(0, failures - 1));
      logger.error(
        { worker: worker.process.pid, code, signal, restartInMs: delay },
        'HTTP worker died; starting another',
      );
      setTimeout(() => {
        if (!draining) fork();
      }, delay);
    });
  };
  for (let i = 0; i < processes; i++) fork();

  return {
    serving,
    pids: () => [...startedAt.keys()].map((w) => w.process.pid ?? 0),
    drain: async (graceMs) => {
      draining = true;
      const workers = [...startedAt.keys()];
      const killer = setTimeout(() => {
        for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
      }, graceMs);
      const exits = workers.map(
        (worker) =>
          new Promise<boolean>((resolve) => {
            if (worker.isDead()) resolve(worker.process.exitCode === 0);
            else worker.once('exit', (code) => resolve(code === 0));
          }),
      );
      await Promise.race([
        Promise.all(workers.map((worker) => ask(worker, { type: 'stop accepting' }, 'stopped accepting'))),
        new Promise((resolve) => setTimeout(resolve, STOP_ACCEPTING_WAIT_MS)),
      ]);
      for (const worker of workers) tell(worker, { type: 'drain' });
      const codes = await Promise.all(exits);
      clearTimeout(killer);
      return codes.every(Boolean);
    },
  };
}

/** Sends a message to a worker; when its IPC channel is gone (it is exiting on its own signal) a SIGTERM instead. */
function tell(worker: Worker, message: PrimaryMessage): void {
  const signal = () => {
    if (!worker.isDead()) worker.process.kill('SIGTERM');
  };
  if (!worker.isConnected()) signal();
  else worker.send(message, undefined, (err: Error | null) => err && signal());
}

/** Sends a message and resolves on the worker's answer of type `reply`, or when it exits. */
function ask(worker: Worker, message: PrimaryMessage, reply: WorkerMessage['type']): Promise<void> {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve();
    const onMessage = (answer: WorkerMessage) => {
      if (answer?.type !== reply) return;
      worker.off('message', onMessage);
      resolve();
    };
    worker.on('message', onMessage);
    worker.once('exit', () => resolve());
    tell(worker, message);
  });
}
