import type { Database } from '@earshot/catalogue';
import { type Kysely, sql } from 'kysely';
import type { CatalogueReader, CommentRecord, PackRecord, SoundRecord, UserRecord } from '../ports.ts';

/**
 * The API's reads over the catalogue tables. Only sounds that are approved and processed exist
 * for the API; every list has a stable order (newest first, then id).
 */
export function catalogueReader(db: Kysely<Database>, defaultSpace: string): CatalogueReader {
  const visibleSounds = () =>
    db
      .selectFrom('sounds as s')
      .where('s.moderation_state', '=', 'ok')
      .where('s.processing_state', '=', 'Processed');

  return {
    async soundsByIds(ids) {
      if (ids.length === 0) return [];
      const rows = await visibleSounds()
        .innerJoin('users as u', 'u.id', 's.user_id')
        .leftJoin('packs as p', 'p.id', 's.pack_id')
        .where('s.id', 'in', [...new Set(ids)])
        .select([
          's.id',
          's.user_id',
          'u.username',
          's.name',
          's.tags',
          's.description',
          's.category',
          's.subcategory',
          's.category_code',
          's.category_is_user_provided',
          's.geotag_lat',
          's.geotag_lon',
          's.created',
          's.license',
          's.type',
          's.channels',
          's.filesize',
          's.bitrate',
          's.bitdepth',
          's.duration',
          's.samplerate',
          's.md5',
          's.is_remix',
          's.was_remixed',
          's.is_explicit',
          's.pack_id',
          'p.name as pack_name',
          's.num_downloads',
          's.avg_rating',
          's.num_ratings',
          's.num_comments',
          sql<boolean>`exists (select 1 from sound_similarity_vectors v where v.sound_id = s.id and v.space = ${defaultSpace})`.as(
            'similarity_ready',
          ),
          sql<boolean>`exists (select 1 from sound_descriptors d where d.sound_id = s.id)`.as('analysed'),
        ])
        .execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      const out: SoundRecord[] = [];
      for (const id of ids) {
        const r = byId.get(id);
        if (!r) continue;
        out.push({
          id: r.id,
          userId: r.user_id,
          username: r.username,
          name: r.name,
          tags: r.tags,
          description: r.description,
          category: r.category,
          subcategory: r.subcategory,
          categoryCode: r.category_code,
          categoryIsUserProvided: r.category_is_user_provided,
          geotag:
            r.geotag_lat === null || r.geotag_lon === null ? null : { lat: r.geotag_lat, lon: r.geotag_lon },
          created: new Date(r.created),
          license: r.license,
          type: r.type ?? '',
          channels: r.channels ?? 0,
          filesize: Number(r.filesize ?? 0),
          bitrate: r.bitrate ?? 0,
          bitdepth: r.bitdepth ?? 0,
          duration: r.duration ?? 0,
          samplerate: r.samplerate ?? 0,
          md5: r.md5 ?? '',
          isRemix: r.is_remix,
          wasRemixed: r.was_remixed,
          isExplicit: r.is_explicit,
          packId: r.pack_id,
          packName: r.pack_name,
          numDownloads: r.num_downloads,
          avgRating: r.avg_rating,
          numRatings: r.num_ratings,
          numComments: r.num_comments,
          similarityReady: r.similarity_ready,
          analysed: r.analysed,
        });
      }
      return out;
    },

    async userByName(username) {
      const row = await db
        .selectFrom('users as u')
        .where(sql`lower(u.username)`, '=', username.toLowerCase())
        .select([
          'u.id',
          'u.username',
          'u.about',
          'u.homepage',
          'u.avatar_path',
          'u.date_joined',
          sql<number>`(select count(*) from sounds s where s.user_id = u.id and s.moderation_state = 'ok' and s.processing_state = 'Processed')::int`.as(
            'num_sounds',
          ),
          sql<number>`(select count(*) from packs p where p.user_id = u.id)::int`.as('num_packs'),
          sql<number>`(select count(*) from comments c where c.user_id = u.id)::int`.as('num_comments'),
        ])
        .executeTakeFirst();
      if (!row) return undefined;
      const user: UserRecord = {
        id: row.id,
        username: row.username,
        about: row.about,
        homepage: row.homepage,
        hasAvatar: row.avatar_path !== null,
        dateJoined: new Date(row.date_joined),
        numSounds: row.num_sounds,
        numPacks: row.num_packs,
        numPosts: 0,
        numComments: row.num_comments,
      };
      return user;
    },

    async userSounds(userId, offset, limit) {
      const base = visibleSounds().where('s.user_id', '=', userId);
      return idSlice(base, offset, limit);
    },

    async userPacks(userId, offset, limit) {
      const [{ count }] = await db
        .selectFrom('packs')
        .where('user_id', '=', userId)
        .select(sql<number>`count(*)::int`.as('count'))
        .execute();
      if (limit === 0) return { count, items: [] };
      const items = await packQuery()
        .where('p.user_id', '=', userId)
        .orderBy('p.created', 'desc')
        .orderBy('p.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute();
      return { count, items: items.map(toPack) };
    },

    async packById(id) {
      const row = await packQuery().where('p.id', '=', id).executeTakeFirst();
      return row ? toPack(row) : undefined;
    },

    async packSounds(packId, offset, limit) {
      return idSlice(visibleSounds().where('s.pack_id', '=', packId), offset, limit);
    },

    async soundComments(soundId, offset, limit) {
      const [{ count }] = await db
        .selectFrom('comments')
        .where('sound_id', '=', soundId)
        .select(sql<number>`count(*)::int`.as('count'))
        .execute();
      if (limit === 0) return { count, items: [] };
      const rows = await db
        .selectFrom('comments as c')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .where('c.sound_id', '=', soundId)
        .select(['u.username', 'c.comment', 'c.created'])
        .orderBy('c.created', 'desc')
        .orderBy('c.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute();
      const items: CommentRecord[] = rows.map((r) => ({ ...r, created: new Date(r.created) }));
      return { count, items };
    },
  };

  function packQuery() {
    return db
      .selectFrom('packs as p')
      .innerJoin('users as u', 'u.id', 'p.user_id')
      .select([
        'p.id',
        'p.name',
        'p.description',
        'p.created',
        'u.username',
        'p.num_downloads',
        sql<number>`(select count(*) from sounds s where s.pack_id = p.id and s.moderation_state = 'ok' and s.processing_state = 'Processed')::int`.as(
          'num_sounds',
        ),
      ]);
  }
}

function toPack(row: {
  id: number;
  name: string;
  description: string;
  created: Date;
  username: string;
  num_downloads: number;
  num_sounds: number;
}): PackRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    created: new Date(row.created),
    username: row.username,
    numSounds: row.num_sounds,
    numDownloads: row.num_downloads,
  };
}

async function idSlice(base: any, offset: number, limit: number) {
  const [{ count }] = await base.select(sql<number>`count(*)::int`.as('count')).execute();
  if (limit === 0) return { count: count as number, items: [] as number[] };
  const rows: Array<{ id: number }> = await base
    .select('s.id')
    .orderBy('s.created', 'desc')
    .orderBy('s.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  return { count: count as number, items: rows.map((r) => r.id) };
}
