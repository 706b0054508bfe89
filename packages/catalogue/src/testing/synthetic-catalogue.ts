import type { SoundType } from '@earshot/core';
import { type Kysely, sql } from 'kysely';
import { LICENSES } from '../schema/licenses.ts';
import { SEARCH_SIDE_TABLES } from '../search/search-schema.ts';

/**
 * A deterministic synthetic catalogue for the search benchmark, shaped like the one in
 * reference/SEARCH.md: Zipf-distributed words and tags, uploads in batches (40% of them packs),
 * a few very active users, clustered geotags, log-normal durations and downloads, growth over time.
 * Loaded through the store's tables with triggers off, then indexed once with search_rebuild().
 */

const SOUND_WORDS = (
  'dog bird rain synth drum bass piano guitar door creak water wind thunder car engine voice ' +
  'footsteps crowd city forest river ocean wave bell metal glass wood kick snare hat cymbal loop ' +
  'ambient drone pad noise click beep alarm siren horn train plane fire explosion impact whoosh ' +
  'swoosh hit scratch vinyl chord melody vocal speech laugh scream breath heart clock tick machine ' +
  'motor fan crackle pop bubble drip splash storm night morning street market church organ string ' +
  'violin cello flute trumpet brass choir field recording nature insect cricket frog owl cat cow ' +
  'horse sheep chicken kitchen office school park beach snow ice steam electric hum buzz glitch ' +
  'bark creaking slam knock squeak rattle rumble'
).split(' ');
const STOPWORDS = 'the a of and in with to on at for from by is it this that was'.split(' ');
const SYLLABLES =
  'ba be bi bo bu da de di do du ga ge gi go gu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu za ze zi zo zu jip reg bab'.split(
    ' ',
  );
/** Each accepted type, wav three times as often (the draws, and so the catalogue, depend on this order). */
const TYPES: readonly SoundType[] = ['wav', 'wav', 'wav', 'flac', 'mp3', 'ogg', 'aiff', 'aif', 'm4a'];
const RATES = [44100, 44100, 48000, 96000, 22050];

export interface SyntheticOptions {
  sounds: number;
  seed?: number;
  /** Called after each batch with the number of sounds written so far. */
  progress?: (written: number) => void;
}

function prng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
  return { next, normal, int: (n: number) => Math.floor(next() * n) };
}

/** Samples ranks 0..n-1 with P(rank k) ∝ 1/(k+1)^s. */
export function zipf(n: number, s: number, rand: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** s;
    cdf[k] = sum;
  }
  return () => {
    const u = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** The vocabulary: real sound words first, then pseudo-words; rank 0 is the most frequent. */
export function syntheticVocabulary(size: number, seed = 42): string[] {
  const r = prng(seed + 1);
  const words = [...SOUND_WORDS];
  const seen = new Set(words);
  while (words.length < size) {
    const parts = 2 + r.int(3);
    let w = '';
    for (let i = 0; i < parts; i++) w += SYLLABLES[r.int(SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
}

export async function loadSyntheticCatalogue(db: Kysely<any>, options: SyntheticOptions): Promise<void> {
  const n = options.sounds;
  const seed = options.seed ?? 42;
  const r = prng(seed);
  const vocab = syntheticVocabulary(50_000, seed);
  const tagVocab = syntheticVocabulary(20_000, seed + 7).map((t, i) =>
    i % 8 === 7 ? `${t}-${vocab[i % 400]}` : t,
  );
  const word = zipf(vocab.length, 1.0, r.next);
  const tag = zipf(tagVocab.length, 0.8, r.next);
  const userCount = Math.max(10, Math.round(n / 20));
  const user = zipf(userCount, 0.85, r.next);

  await db.connection().execute(async (conn) => {
    // Triggers off for the bulk load; the search document is built once at the end.
    await sql`set session_replication_role = replica`.execute(conn);
    // Usernames are a word drawn like any other (Zipf over the vocabulary) and the user's number,
    // from their own generator so the sounds' draws do not depend on them: no word reaches most
    // sounds through their uploaders' names.
    const nameRandom = prng(seed + 13);
    const userWord = zipf(vocab.length, 1.0, nameRandom.next);
    for (let u = 0; u < userCount; u += 10_000) {
      const m = Math.min(10_000, userCount - u);
      const ids = Array.from({ length: m }, (_, i) => u + i + 1);
      const names = ids.map((i) => `${vocab[userWord()]}${i}`);
      await sql`insert into users (id, username) select * from unnest(${ids}::int[], ${names}::text[])`.execute(
        conn,
      );
    }
    let id = 0;
    let packId = 0;
    const batch: Record<string, unknown[]> = {};
    const packs: { id: number[]; user: number[]; name: string[] } = { id: [], user: [], name: [] };
    const cols = [
      'id',
      'user_id',
      'pack_id',
      'name',
      'description',
      'tags',
      'license',
      'type',
      'channels',
      'samplerate',
      'duration',
      'created',
      'downloads',
      'rating',
      'ratings',
      'lat',
      'lon',
      'bpm',
      'loudness',
    ];
    const reset = () => {
      for (const c of cols) batch[c] = [];
    };
    reset();
    const centres = Array.from({ length: 300 }, () => [r.next() * 140 - 70, r.next() * 340 - 170]);
    const flush = async () => {
      if (!batch.id.length) return;
      if (packs.id.length) {
        await sql`insert into packs (id, user_id, name) select * from unnest(${packs.id}::int[], ${packs.user}::int[], ${packs.name}::text[])`.execute(
          conn,
        );
        packs.id = [];
        packs.user = [];
        packs.name = [];
      }
      const b = batch;
      await sql`insert into sounds (id, user_id, pack_id, name, description, tags, license, type, channels, samplerate,
          duration, created, num_downloads, avg_rating, num_ratings, geotag_lat, geotag_lon, original_filename,
          original_path, processing_state, moderation_state)
        select id, uid, pid, name, descr, string_to_array(tags, ' '), lic, typ, ch, sr, dur, created, dl, rating, nr,
          lat, lon, name || '.' || typ, '/bench/' || id, 'Processed', 'ok'
        from unnest(${b.id}::int[], ${b.user_id}::int[], ${b.pack_id}::int[], ${b.name}::text[], ${b.description}::text[],
          ${b.tags}::text[], ${b.license}::text[], ${b.type}::text[], ${b.channels}::int[], ${b.samplerate}::int[],
          ${b.duration}::float8[], ${b.created}::timestamptz[], ${b.downloads}::int[], ${b.rating}::float8[],
          ${b.ratings}::int[], ${b.lat}::float8[], ${b.lon}::float8[])
          as t(id, uid, pid, name, descr, tags, lic, typ, ch, sr, dur, created, dl, rating, nr, lat, lon)`.execute(
        conn,
      );
      await sql`insert into sound_descriptors (sound_id, bpm, loudness)
        select * from unnest(${b.id}::int[], ${b.bpm}::int[], ${b.loudness}::float8[])`.execute(conn);
      options.progress?.(id);
      reset();
    };
    while (id < n) {
      const uid = user() + 1;
      const size = 1 + r.int(12);
      const inPack = r.next() < 0.4;
      let pid: number | null = null;
      const packTags: string[] = [];
      if (inPack) {
        pid = ++packId;
        packTags.push(tagVocab[tag()]);
        packs.id.push(pid);
        packs.user.push(uid);
        packs.name.push(`${vocab[word()]} ${vocab[word()]} ${pid}`);
      }
      const year = 2005 + 20 * Math.sqrt(r.next());
      for (let k = 0; k < size && id < n; k++) {
        id++;
        const tags = new Set(packTags);
        const tagCount = 3 + r.int(8);
        while (tags.size < tagCount) tags.add(tagVocab[tag()]);
        const tagList = [...tags];
        const nameWords = Array.from({ length: 1 + r.int(4) }, () =>
          r.next() < 0.5 ? tagList[r.int(tagList.length)] : vocab[word()],
        );
        const descLen = Math.max(1, Math.round(Math.exp(Math.log(15) + 0.6 * r.normal())));
        const desc: string[] = [];
        for (let w = 0; w < descLen; w++) {
          const u = r.next();
          desc.push(
            u < 0.35
              ? STOPWORDS[r.int(STOPWORDS.length)]
              : u < 0.5
                ? tagList[r.int(tagList.length)]
                : vocab[word()],
          );
        }
        const created = new Date(Date.UTC(Math.floor(year), 0, 1) + r.next() * 365 * 86_400_000);
        const age = Math.max(0.1, 2025.5 - year);
        const downloads = Math.round(Math.exp(2 + 1.5 * r.normal()) * age);
        const ratings = Math.round(downloads / (30 + r.int(70)));
        const geo = r.next() < 0.3 ? centres[r.int(centres.length)] : null;
        batch.id.push(id);
        batch.user_id.push(uid);
        batch.pack_id.push(pid);
        batch.name.push(nameWords.join(' ') + (r.next() < 0.4 ? `_${r.int(100)}` : ''));
        batch.description.push(desc.join(' '));
        batch.tags.push(tagList.join(' '));
        batch.license.push(LICENSES[r.int(3)]);
        batch.type.push(TYPES[r.int(TYPES.length)]);
        batch.channels.push(1 + r.int(2));
        batch.samplerate.push(RATES[r.int(RATES.length)]);
        batch.duration.push(Math.min(3600, Math.exp(Math.log(5) + 1.3 * r.normal())));
        batch.created.push(created.toISOString());
        batch.downloads.push(downloads);
        batch.rating.push(ratings > 0 ? 1 + r.next() * 4 : 0);
        batch.ratings.push(ratings);
        batch.lat.push(geo ? Math.max(-89, Math.min(89, geo[0] + r.normal() * 0.5)) : null);
        batch.lon.push(geo ? Math.max(-179, Math.min(179, geo[1] + r.normal() * 0.5)) : null);
        batch.bpm.push(r.next() < 0.25 ? 60 + r.int(121) : null);
        batch.loudness.push(-40 + r.next() * 38);
      }
      if (batch.id.length >= 5000) await flush();
    }
    await flush();
    await sql`set session_replication_role = origin`.execute(conn);
    await sql`select setval(pg_get_serial_sequence('sounds', 'id'), ${n})`.execute(conn);
    await sql`select search_rebuild()`.execute(conn);
    await sql`select descriptor_ranges_rebuild()`.execute(conn);
    await sql`select sound_changes_rebuild()`.execute(conn);
    // What autovacuum would do in production: set the visibility map so counts can use index-only scans.
    for (const table of ['sound_search', 'sound_descriptors', ...SEARCH_SIDE_TABLES])
      await sql`vacuum (analyze) ${sql.table(table)}`.execute(conn);
    await sql`analyze`.execute(conn);
  });
}
