import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { acquireTaskLease, editSound, lastSoundChange, releaseTaskLease } from '@earshot/catalogue';
import { insertSeedSound } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { EXPORT_TASK, exportsDir, latestExport, runCatalogueExport } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { type RunnerBackend, runnerBackends } from '../testing/runner-backends.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';

/**
 * The bulk export made by the workers by themselves (issue 36): at once where none exists, then
 * again only after the catalogue changed and the changes settled; one writer at a time across
 * processes (the catalogue's export lease), and a writer that dies leaves the previous export
 * served and nothing half-written. Two job runners stand for two worker hosts on one catalogue.
 */

const redisUrl = await testService('redis');
const postgresUrl = await testService('postgres');

const setups = runnerBackends('export_job', redisUrl, postgresUrl);

const ORIGIN = 'https://sounds.example.org';
const SETTLE_MS = 400;

describe.each(setups)('the automatic bulk export with the %s', (_, redis, open, available) => {
  let backend: RunnerBackend;
  const services: JobRunnerService[] = [];
  const prefix = uniquePrefix('export');
  const ids: number[] = [];

  beforeAll(async () => {
    if (!available) return;
    backend = await open();
    const db = backend.catalogue.db;
    const owner = await backend.user('ann');
    for (const [name, public_] of [
      ['Rain', true],
      ['Wind', true],
      ['Thunder', true],
      ['Hidden', false],
    ] as const)
      ids.push(
        await insertSeedSound(db, {
          user_id: owner,
          name,
          license: 'Creative Commons 0',
          original_filename: `${name}.wav`,
          original_path: `x/${name}.wav`,
          type: 'wav',
          processing_state: 'Processed',
          moderation_state: public_ ? 'ok' : 'pending_moderation',
        }),
      );
    for (let host = 0; host < 2; host++) {
      const service = createJobRunner({
        config: { dataDir: backend.dataDir, REDIS_URL: redis, WORKER_CONCURRENCY: 2 },
        logger: backend.logger,
        catalogue: backend.catalogue,
        runWorkers: true,
        queuePrefix: prefix,
        reconcileIntervalMs: 100,
        catalogueExport: {
          origin: ORIGIN,
          schedule: { settleMs: SETTLE_MS, maxAgeMs: 3_600_000 },
          checkEveryMs: 100,
          leaseMs: 3_000,
        },
      });
      await service.start();
      services.push(service);
    }
  }, 120_000);

  afterAll(async () => {
    if (!available) return;
    for (const service of services) await service.close(5_000);
    if (redis) await dropQueue(redis, prefix);
    await backend.dispose();
  });

  const names = async () => {
    const latest = await latestExport(backend.dataDir);
    if (!latest) return undefined;
    return gunzipSync(fs.readFileSync(latest.path))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { name: string }).name);
  };
  const filesInFolder = () => fs.readdirSync(exportsDir(backend.dataDir));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it.skipIf(!available)('makes the first export at once, then none while nothing changes', async () => {
    expect(await waitFor(names, { what: 'the first export' })).toEqual(['Rain', 'Wind', 'Thunder']);
    const first = await latestExport(backend.dataDir);
    await sleep(SETTLE_MS * 3);
    expect(await latestExport(backend.dataDir)).toEqual(first);
  });

  it.skipIf(!available)('makes it again once a change has settled, not before', async () => {
    const before = await latestExport(backend.dataDir);
    await editSound(backend.catalogue.db, ids[1], { name: 'Gale' });
    const edited = (await lastSoundChange(backend.catalogue.db))?.changedAt.getTime() ?? Number.NaN;
    const after = await waitFor(
      async () => {
        const latest = await latestExport(backend.dataDir);
        return latest && latest.cursor !== before?.cursor ? latest : undefined;
      },
      { what: 'the export after the edit' },
    );
    expect(Date.parse(after.created) - edited).toBeGreaterThanOrEqual(SETTLE_MS);
    expect(await names()).toEqual(['Rain', 'Gale', 'Thunder']);
    // The previous export stays for a download under way; nothing half-written is left.
    expect(
      filesInFolder()
        .filter((f) => f.endsWith('.jsonl.gz'))
        .sort(),
    ).toEqual([before?.file, after.file].sort());
    expect(filesInFolder().filter((f) => f.endsWith('.partial'))).toEqual([]);
  });

  it.skipIf(!available)('writes nothing while another process holds the export lease', async () => {
    const db = backend.catalogue.db;
    const before = await latestExport(backend.dataDir);
    const other = await acquireTaskLease(db, EXPORT_TASK, 'another host', 60_000);
    expect(other).toBeDefined();
    try {
      await editSound(db, ids[0], { name: 'Drizzle' });
      await sleep(SETTLE_MS * 4);
      expect(await latestExport(backend.dataDir)).toEqual(before);
      await expect(runCatalogueExport(db, backend.dataDir, ORIGIN)).rejects.toMatchObject({
        code: 'export_busy',
        status: 409,
      });
    } finally {
      if (other) await releaseTaskLease(db, other);
    }
    await waitFor(async () => (await names())?.includes('Drizzle'), { what: 'the export after the lease' });
  });

  it.skipIf(!available)(
    'a writer that dies before publishing leaves the previous export served',
    async () => {
      const db = backend.catalogue.db;
      const before = await latestExport(backend.dataDir);
      // A dead writer's leftover, as a crash leaves it: the next writer removes it.
      const leftover = path.join(exportsDir(backend.dataDir), '.catalogue-dead.jsonl.gz.partial');
      fs.writeFileSync(leftover, 'half');
      const stop = new AbortController();
      await expect(
        runCatalogueExport(db, backend.dataDir, ORIGIN, {
          signal: stop.signal,
          onProgress: () => stop.abort(new Error('killed')),
        }),
      ).rejects.toThrow('killed');
      expect(await latestExport(backend.dataDir)).toEqual(before);
      expect(await names()).toEqual(['Drizzle', 'Gale', 'Thunder']);
      expect(filesInFolder().filter((f) => f.endsWith('.partial'))).toEqual([]);
      // The lease was given back: the next writer is not refused.
      expect((await runCatalogueExport(db, backend.dataDir, ORIGIN)).sounds).toBe(3);
    },
  );
});
