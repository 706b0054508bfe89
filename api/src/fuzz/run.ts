import http from 'node:http';
import { describeFailure, violation } from './check.ts';
import { type Credentials, generateRequest } from './generate.ts';
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
  valid: ValidValues;
  creds: Credentials;
  /** Strings that must never appear in a response. */
  secrets: string[];
  onProgress?: (done: number, failures: number) => void;
}

export interface FuzzRunResult {
  sent: number;
  byStatus: Record<number, number>;
  failures: string[];
  /** Requests node:http would not send (characters it refuses): counted, not failures. */
  unsendable: number;
}

/** Sends the run's requests a few at a time and collects every rule broken. */
export async function runFuzz(o: FuzzRunOptions): Promise<FuzzRunResult> {
  const origin = new URL(o.origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency ?? 8 });
  const byKind = new Map(o.targets.map((t) => [`${t.method} ${t.path}`, t.kind]));
  const result: FuzzRunResult = { sent: 0, byStatus: {}, failures: [], unsendable: 0 };
  const indexes = o.only !== undefined ? [o.only] : Array.from({ length: o.count }, (_, i) => i);
  let next = 0;
  const worker = async () => {
    while (next < indexes.length) {
      const index = indexes[next++];
      const req = generateRequest(o.seed, index, o.targets, o.valid, o.creds);
      const res = await send(origin, req, agent);
      result.sent++;
      if (res.status === -1) result.unsendable++;
      result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
      const why = violation(req, res, byKind.get(req.target) ?? 'api', o.secrets);
      if (why) result.failures.push(describeFailure(o.seed, req, res, why));
      if (result.sent % 1000 === 0) o.onProgress?.(result.sent, result.failures.length);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency ?? 8 }, worker));
  agent.destroy();
  return result;
}
