import path from 'node:path';
import { type Db, findUserByName, hasSounds } from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import { ensureFixtures, type FixtureEntry, fixturesDir } from '@earshot/fixtures';
import {
  createUser,
  DEMO_USERNAME,
  type ProcessingQueue,
  queueImports,
  SoundIntake,
  type SoundStorage,
} from '@earshot/services';

const DEMO_GROUPS = ['tone', 'rhythm', 'harmony', 'event', 'noise', 'loop', 'music'];
/** Words people search for that the fixture names do not contain. */
const GROUP_TAGS: Record<string, string[]> = {
  rhythm: ['drum', 'beat', 'percussion'],
  harmony: ['chord', 'music'],
  tone: ['note', 'synth'],
  noise: ['texture'],
  loop: ['drum', 'beat'],
};

export interface DemoImportOptions {
  db: Db;
  storage: SoundStorage;
  queue: ProcessingQueue;
  logger: Logger;
  config: { DEMO_IMPORT: boolean };
  /** How many fixtures (default 36, spread over the groups). */
  limit?: number;
}

/**
 * The demo belongs to `earshot serve` (the CLI), not to the services: it needs the fixture
 * generator, a test-data package that an installed worker or API must not have to carry.
 *
 * On an empty catalogue, imports a spread of the generated fixtures as approved sounds of the user
 * "demo", so that a newcomer's first search finds something. Returns how many were queued (0 when
 * the catalogue already has sounds or DEMO_IMPORT is off). Processing continues in the background.
 */
export async function importDemoFixtures(options: DemoImportOptions): Promise<number> {
  const { db, logger } = options;
  if (!options.config.DEMO_IMPORT) return 0;
  if (await hasSounds(db)) return 0;
  logger.info('demo: empty catalogue; importing the demo fixtures');
  const manifest = await ensureFixtures();
  const picked = pickDemo(manifest.fixtures, options.limit ?? 36);
  const existing = await findUserByName(db, DEMO_USERNAME);
  const userId = existing?.id ?? (await createUser(db, { username: DEMO_USERNAME, isTrusted: true }));
  const byFile = new Map(picked.map((f) => [path.join(fixturesDir(), f.file), f]));
  const queued = await queueImports(new SoundIntake(db, options.storage), options.queue, [...byFile.keys()], {
    userId,
    packName: 'earshot demo fixtures',
    approve: true,
    describe: (file) => describeFixture(byFile.get(file)!),
  });
  logger.info({ sounds: queued.length }, 'demo: fixtures queued for processing');
  return queued.length;
}

function pickDemo(fixtures: FixtureEntry[], limit: number): FixtureEntry[] {
  const groups = DEMO_GROUPS.map((g) => fixtures.filter((f) => f.group === g && (f.duration ?? 0) >= 0.5));
  const picked: FixtureEntry[] = [];
  for (let round = 0; picked.length < limit && groups.some((g) => g.length > round); round++) {
    for (const group of groups) {
      // Spread over each group instead of taking its first members (all low notes, say).
      const step = Math.max(1, Math.floor(group.length / Math.ceil(limit / DEMO_GROUPS.length)));
      const entry = group[round * step];
      if (entry && picked.length < limit && !picked.includes(entry)) picked.push(entry);
    }
  }
  return picked;
}

function describeFixture(f: FixtureEntry) {
  const words = f.name.split('-');
  const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
  const truth = Object.entries(f.truth)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return {
    name,
    tags: [f.group, ...words, ...(GROUP_TAGS[f.group] ?? []), 'demo', 'synthetic'],
    description: `A ${f.group} sound made by earshot's deterministic fixture generator${truth ? ` (${truth})` : ''}.`,
    license: 'Creative Commons 0',
  };
}
