import http from 'node:http';
import { describeFailure, violation } from './check.ts';
import { type Credentials, type FuzzRequest, generateRequest } from './generate.ts';
import { send } from './send.ts';
import type { FuzzTarget } from './targets.ts';
import type { ValidValues } from './values.ts';

export interface FuzzRunOptions {
  origin: string;
  seed: number;
  count: number;
  /** Replays only this request of the run. */
  only?: number;
  concurrency?: number;
  targets: readonly FuzzTarget[];
  valid?: ValidValues;
  creds?: Credentials;
  /**
   * Makes request `index` of the run (default: generateRequest over `targets`, `valid`, `creds`).
   * It may wait (for a fresh authorization code or session it needs) but depends on the seed and
   * the index alone, so a failure still replays by both.
   */
  generate?: (index: number) => FuzzRequest | Promise<FuzzRequest>;
  /** Strings that must never appear in a response. */
  secrets: string[];
  onProgress?: (done: number, failures: number) => void;
}

export interface FuzzRunResult {
  sent: number;
  byStatus: Record<number, number>;
  /** Statuses by the requests' family (requests without one count under `other`). */
  byFamily: Record<string, Record<number, number>>;
  /** Milliseconds spent by family, making the requests and waiting for their answers (where a run's time goes). */
  msByFamily: Record<string, number>;
  failures: string[];
  /** Requests node:http would not send (characters it refuses): counted, not failures. */
  unsendable: number;
}

/** Sends the run's requests a few at a time and collects every rule broken. */
export async function runFuzz(o: FuzzRunOptions): Promise<FuzzRunResult> {
  const origin = new URL(o.origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency ?? 8 });
  const byKind = new Map(o.targets.map((t) => [`${t.method} ${t.path}`, t.kind]));
  const generate = o.generate ?? defaultGenerator(o);
  const result: FuzzRunResult = {
    sent: 0,
    byStatus: {},
    byFamily: {},
    msByFamily: {},
    failures: [],
    unsendable: 0,
  };
  const indexes = o.only !== undefined ? [o.only] : Array.from({ length: o.count }, (_, i) => i);
  let next = 0;
  const worker = async () => {
    while (next < indexes.length) {
      const index = indexes[next++];
      const began = performance.now();
      const req = await generate(index);
      const res = await send(origin, req, agent);
      result.sent++;
      if (res.status === -1) result.unsendable++;
      result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
      const family = req.family ?? 'other';
      result.byFamily[family] ??= {};
      result.byFamily[family][res.status] = (result.byFamily[family][res.status] ?? 0) + 1;
      result.msByFamily[family] = (result.msByFamily[family] ?? 0) + (performance.now() - began);
      const why = violation(req, res, req.kind ?? byKind.get(req.target) ?? 'api', o.secrets);
      if (why) result.failures.push(describeFailure(o.seed, req, res, why));
      if (result.sent % 1000 === 0) o.onProgress?.(result.sent, result.failures.length);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency ?? 8 }, worker));
  agent.destroy();
  return result;
}

function defaultGenerator(o: FuzzRunOptions): (index: number) => FuzzRequest {
  const { valid, creds } = o;
  if (!valid || !creds)
    throw new Error('runFuzz: give `generate`, or `valid` and `creds` for the route generator');
  return (index) => generateRequest(o.seed, index, o.targets, valid, creds);
}
