/**
 * The workers as an operator installs them: @earshot/workers and what it depends on (common, core,
 * catalogue, services) packed, installed from the tarballs into an empty folder outside the
 * repository, and its `earshot-worker` started there with only REDIS_URL, DATABASE_URL and DATA_DIR.
 * The upload is made by the repository's own services (sources) into a fresh database on the
 * PostgreSQL server and a queue of its own on the shared Redis: the installed worker must take it
 * to pending moderation.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { testService } from '@earshot/common/testing';
import { realSampleFile } from '@earshot/fixtures';
import {
  ConsumerProject,
  consumerEnv,
  repositoryVersion,
  TSC,
  undeclaredImports,
} from '@earshot/fixtures/testing';
import { SoundIntake } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../src/job-runner.ts';
import { MEDIA_STAGE_FILES } from '../src/testing/media-files.ts';
import { ServerDatabase } from '../src/testing/server-database.ts';
import { dropQueue, uniquePrefix, waitFor } from '../src/testing/wait.ts';

const postgresUrl = await testService('postgres');
const redisUrl = await testService('redis');

const PACKAGES = [
  '@earshot/common',
  '@earshot/core',
  '@earshot/catalogue',
  '@earshot/services',
  '@earshot/workers',
];
describe.skipIf(!postgresUrl || !redisUrl)('earshot-worker installed from the tarballs', () => {
  let project: ConsumerProject;
  let db: ServerDatabase;
  let producer: JobRunnerService;
  const prefix = uniquePrefix('install');
  let worker: ChildProcess | undefined;
  let output = '';
  let errors = '';

  beforeAll(async () => {
    project = await ConsumerProject.create('workers', {
      packages: PACKAGES,
      dependencies: ['@earshot/workers'],
      registryPackages: [repositoryVersion('@types/node')],
    });
    db = await ServerDatabase.create(postgresUrl!, 'install');
    // This process only produces; the installed worker consumes.
    producer = createJobRunner({
      config: { dataDir: db.dataDir, REDIS_URL: redisUrl, WORKER_CONCURRENCY: 1 },
      logger: db.logger,
      catalogue: db.catalogue,
      queuePrefix: prefix,
    });
  }, 1_200_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    await producer?.close(0);
    if (redisUrl) await dropQueue(redisUrl, prefix);
    await db?.dispose();
    await project?.dispose();
  });

  it('declares every package the shipped JavaScript of each imports, and no test data', () => {
    for (const name of PACKAGES.slice(2)) {
      const pkg = project.package(name);
      expect(undeclaredImports(pkg), name).toEqual([]);
      expect(Object.keys(pkg.manifest.dependencies ?? {}), name).not.toContain('@earshot/fixtures');
      expect(pkg.manifest.private, name).toBeUndefined();
      expect(pkg.entries, name).toEqual(expect.arrayContaining(['dist/index.js', 'README.md', 'LICENSE']));
      expect(
        pkg.entries.filter((e) => /^src\/|\.test\.|^dist\/testing\//.test(e)),
        name,
      ).toEqual([]);
    }
  });

  it('a strict TypeScript start script type-checks against the declarations (skipLibCheck off)', async () => {
    const ts = path.join(project.dir, 'ts');
    await fs.mkdir(ts);
    for (const file of ['tsconfig.json', 'worker-types.ts']) {
      await fs.copyFile(new URL(`./consumer/${file}`, import.meta.url), path.join(ts, file));
    }
    const result = await project.node([TSC, '-p', ts], { timeoutMs: 300_000 });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.code).toBe(0);
  });

  it('processes an upload to pending moderation, then stops cleanly on SIGTERM', async () => {
    // As an operator starts it: the installed command, three variables and nothing of the repository.
    worker = spawn(
      path.join(project.dir, 'node_modules', '.bin', 'earshot-worker'),
      ['--queue-prefix', prefix],
      {
        cwd: project.dir,
        env: {
          PATH: consumerEnv().PATH,
          REDIS_URL: redisUrl,
          DATABASE_URL: db.url,
          DATA_DIR: db.dataDir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => worker!.once('exit', (code) => resolve(code)));
    worker.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    worker.stderr!.on('data', (d: Buffer) => {
      errors += d.toString();
    });
    await waitFor(
      () => {
        if (worker!.exitCode !== null)
          throw new Error(`earshot-worker exited ${worker!.exitCode}:\n${errors}`);
        return output.includes('ready');
      },
      { timeoutMs: 60_000, what: 'the installed worker to be ready' },
    );

    const userId = await db.user('uploader');
    const intake = new SoundIntake(db.catalogue.db, producer.storage);
    const id = await intake.create({ userId, file: realSampleFile('loop_amen_full') });
    await producer.pipeline.submit(id);
    const sound = await waitFor(
      async () => {
        const s = await db.catalogue.db
          .selectFrom('sounds')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return s.processing_state === 'Processed' || s.processing_state === 'Failed' ? s : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 100, what: `the installed worker to process sound ${id}` },
    );
    expect(sound.processing_state, errors).toBe('Processed');
    expect(sound.moderation_state).toBe('pending_moderation');
    const dir = producer.storage.soundDir(id);
    expect(dir.startsWith(db.dataDir)).toBe(true);
    expect((await fs.readdir(path.join(dir, 'media'))).sort()).toEqual(MEDIA_STAGE_FILES);
    for (const key of ['preview-hq-mp3', 'preview-lq-ogg', 'waveform_l', 'spectral_m']) {
      expect((await fs.stat(path.join(db.dataDir, sound.media_paths[key]))).size, key).toBeGreaterThan(0);
    }
    expect((await fs.readdir(path.join(dir, 'analysis'))).length).toBeGreaterThan(0);

    worker.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000)),
    ]);
    expect(code, errors).toBe(0);
    expect(errors).not.toMatch(/"level":(50|60)/);
  });
});
