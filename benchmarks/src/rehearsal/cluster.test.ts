import { describe, expect, it } from 'vitest';
import { DEFAULT_HOST_CPUS, rehearsalPossible, rehearseCluster } from './cluster.ts';

// The shortened rehearsal of issue 34 (one fault, one minute): the hosts are network namespaces,
// which need root and iproute2 (CI runs as root on this machine kind). Anywhere else it is skipped
// and says why. Its speed figures (throughput ratio, recovery, similarity lag) are the full
// rehearsal's report (`npx earshot rehearse cluster`), not asserted here.
const possible = rehearsalPossible();
if (!possible.ok) console.warn(`cluster rehearsal skipped: ${possible.reason}`);

describe.skipIf(!possible.ok)(
  'the shortened cluster rehearsal: one API host killed under a minute of mixed load',
  () => {
    it('loses, repeats and strands no upload, fails only requests in flight on the killed host, and its hosts agree', async () => {
      const lines: string[] = [];
      const f = await rehearseCluster({
        minutes: 1,
        sounds: 1000,
        short: true,
        scalingRoundS: 3,
        hostCpus: DEFAULT_HOST_CPUS,
        say: (line) => lines.push(line),
      });
      const context = `${JSON.stringify(f, null, 2)}\n${lines.join('\n')}`;
      expect(f.uploads_accepted, context).toBeGreaterThan(5);
      expect(f.lost, context).toBe(0);
      expect(f.duplicated, context).toBe(0);
      expect(f.stuck, context).toBe(0);
      expect(f.uploads_processed, context).toBe(f.uploads_accepted);
      expect(f.errors_outside_killed, context).toBe(0);
      expect(f.api_recovery_s, context).not.toBeNull();
      // One limit across hosts, sessions and OAuth2 codes good on either, a write seen on the other.
      expect(f.rate_limit_total, context).toBe(60);
      expect(f.sessions_across_hosts, context).toBe(true);
      expect(f.oauth2_codes_across_hosts, context).toBe(true);
      // Every new sound reached both hosts' similarity indexes (how fast is the full report's).
      expect(f.similarity_missing, context).toBe(0);
      expect(f.faults[0], context).toMatch(/^api1: kill -9 of its \d+ processes/);
    }, 900_000);
  },
);
