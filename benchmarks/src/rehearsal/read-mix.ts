// The realistic read mix of the rehearsal, drawn up front (seeded) over the catalogue: uniform sound
// ids for instances, analyses and similar sounds, Zipf text searches over the catalogue's words.

import {
  realisticSearches,
  searchPath,
  searchStream,
  seededRandom,
  uniformIds,
} from '../realistic-workload.ts';
import type { RequestKind } from './load.ts';

export interface ReadPaths {
  kind: RequestKind;
  paths: string[];
}

export async function drawReadMix(dbUrl: string, sounds: number, count: number): Promise<ReadPaths[]> {
  const random = seededRandom(34);
  const distinct = Math.min(10_000, Math.max(500, sounds));
  const searches = searchStream(await realisticSearches(dbUrl, distinct, random), count, random);
  return [
    { kind: 'sound instance', paths: uniformIds(sounds, count, random).map((id) => `/apiv2/sounds/${id}/`) },
    { kind: 'text search', paths: searches.map(searchPath) },
    {
      kind: 'similar sounds',
      paths: uniformIds(sounds, count, random).map(
        (id) => `/apiv2/sounds/${id}/similar/?fields=id,name,score`,
      ),
    },
    {
      kind: 'sound analysis',
      paths: uniformIds(sounds, count, random).map((id) => `/apiv2/sounds/${id}/analysis/`),
    },
  ];
}

/** The same mix as one list of paths in its shares (for wrk): half instances, a quarter searches… */
export function mixedPaths(mix: ReadPaths[], count: number, random = seededRandom(35)): string[] {
  const shares: [RequestKind, number][] = [
    ['sound instance', 0.5],
    ['text search', 0.3],
    ['similar sounds', 0.15],
    ['sound analysis', 0.05],
  ];
  return Array.from({ length: count }, () => {
    let x = random();
    let kind: RequestKind = 'sound instance';
    for (const [k, share] of shares) {
      if (x < share) {
        kind = k;
        break;
      }
      x -= share;
    }
    const paths = mix.find((m) => m.kind === kind)?.paths ?? [];
    return paths[Math.floor(random() * paths.length)];
  });
}
