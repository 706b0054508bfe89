// What must hold after the rehearsal, read from the catalogue, the queue and the shared storage:
// every accepted upload processed once (one set of media files, one similarity vector per space),
// no job left behind.

import fs from 'node:fs';
import path from 'node:path';
import { listSimilaritySpaces } from '@earshot/core';
import type { Redis } from 'ioredis';
import type pg from 'pg';

export interface UploadOutcome {
  /** Accepted uploads that ended without a processed sound (missing, failed, or never finished). */
  lost: number;
  /** Processed uploads with more than one set of files, or a vector count other than one per space. */
  duplicated: number;
  /** Sounds still unfinished at the end, and jobs still waiting or active in the queue. */
  stuck: number;
  processed: number;
  failed: number;
  /** What was wrong, one line per sound (at most a few). */
  problems: string[];
}

const FINAL = new Set(['Processed', 'Failed']);

/** Waits (up to `timeoutMs`) until every accepted upload is Processed or Failed; reports each state. */
export async function waitForUploads(
  db: pg.Client,
  ids: number[],
  timeoutMs: number,
  progress: (open: number) => void,
): Promise<Map<number, { state: string; error: string | null }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows =
      ids.length === 0
        ? []
        : (
            await db.query<{ id: number; processing_state: string; processing_error: string | null }>(
              'select id, processing_state, processing_error from sounds where id = any($1::int[])',
              [ids],
            )
          ).rows;
    const states = new Map(rows.map((r) => [r.id, { state: r.processing_state, error: r.processing_error }]));
    const open = ids.filter((id) => !FINAL.has(states.get(id)?.state ?? 'missing')).length;
    progress(open);
    if (open === 0 || Date.now() > deadline) return states;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** BullMQ's lists of jobs not finished: waiting, active, delayed, prioritized, paused. */
export async function unfinishedJobs(redis: Redis, prefix = 'earshot', queue = 'pipeline'): Promise<number> {
  const key = (name: string) => `${prefix}:${queue}:${name}`;
  const [wait, active, paused, delayed, prioritized] = await Promise.all([
    redis.llen(key('wait')),
    redis.llen(key('active')),
    redis.llen(key('paused')),
    redis.zcard(key('delayed')),
    redis.zcard(key('prioritized')),
  ]);
  return wait + active + paused + delayed + prioritized;
}

/**
 * A processed sound's folder on the shared storage holds one original, each stored file its
 * catalogue row names, and nothing of an unfinished or repeated attempt (staging folders, partial
 * files, the work folder); the catalogue holds one vector per similarity space.
 */
async function processedOnce(db: pg.Client, dataDir: string, id: number): Promise<string | undefined> {
  const row = (
    await db.query<{ original_path: string; media_paths: Record<string, string> }>(
      'select original_path, media_paths from sounds where id = $1',
      [id],
    )
  ).rows[0];
  const vectors = (
    await db.query<{ space: string; n: number }>(
      'select space, count(*)::int as n from sound_similarity_vectors where sound_id = $1 group by space',
      [id],
    )
  ).rows;
  const spaces = listSimilaritySpaces().map((s) => s.name);
  for (const space of spaces) {
    const n = vectors.find((v) => v.space === space)?.n ?? 0;
    if (n !== 1) return `sound ${id}: ${n} vectors in ${space}`;
  }
  const soundDir = path.join(dataDir, 'sounds', String(id % 1000), String(id));
  const entries = fs.existsSync(soundDir) ? fs.readdirSync(soundDir) : [];
  const originals = entries.filter((e) => e.startsWith('original'));
  if (originals.length !== 1) return `sound ${id}: ${originals.length} originals (${originals.join(', ')})`;
  const leftovers = entries.filter(
    (e) => e.startsWith('.staging-') || e === 'work' || e.endsWith('.partial'),
  );
  if (leftovers.length > 0) return `sound ${id}: leftovers of another attempt: ${leftovers.join(', ')}`;
  if (!fs.existsSync(path.resolve(dataDir, row.original_path))) return `sound ${id}: original missing`;
  for (const [kind, file] of Object.entries(row.media_paths ?? {})) {
    if (!fs.existsSync(path.resolve(dataDir, file))) return `sound ${id}: ${kind} missing (${file})`;
  }
  if (Object.keys(row.media_paths ?? {}).length === 0) return `sound ${id}: no media files`;
  return undefined;
}

export async function checkUploads(
  db: pg.Client,
  redis: Redis,
  dataDir: string,
  accepted: number[],
  states: Map<number, { state: string; error: string | null }>,
): Promise<UploadOutcome> {
  const outcome: UploadOutcome = { lost: 0, duplicated: 0, stuck: 0, processed: 0, failed: 0, problems: [] };
  const note = (line: string) => {
    if (outcome.problems.length < 10) outcome.problems.push(line);
  };
  for (const id of accepted) {
    const s = states.get(id);
    if (!s) {
      outcome.lost++;
      note(`sound ${id}: accepted, then missing from the catalogue`);
    } else if (s.state === 'Failed') {
      outcome.failed++;
      outcome.lost++;
      note(`sound ${id}: failed: ${s.error}`);
    } else if (s.state !== 'Processed') {
      outcome.stuck++;
      outcome.lost++;
      note(`sound ${id}: still ${s.state}`);
    } else {
      outcome.processed++;
      const problem = await processedOnce(db, dataDir, id);
      if (problem) {
        outcome.duplicated++;
        note(problem);
      }
    }
  }
  const jobs = await unfinishedJobs(redis);
  if (jobs > 0) note(`${jobs} jobs still in the queue`);
  outcome.stuck += jobs;
  return outcome;
}
