import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_CHANGED_CHANNEL, CatalogueChangeFeed } from './change-feed.ts';

const postgresUrl = await testService('postgres');

describe.skipIf(!postgresUrl)('the catalogue change feed on the PostgreSQL server', () => {
  let feed: CatalogueChangeFeed;
  let writer: pg.Client;
  beforeAll(async () => {
    feed = await CatalogueChangeFeed.start(postgresUrl as string, createLogger('silent'));
    writer = new pg.Client({ connectionString: postgresUrl });
    await writer.connect();
  });
  afterAll(async () => {
    await feed?.close();
    await writer?.end();
  });

  it('a change committed before current() is asked is in the version it answers, every time', async () => {
    let version = await feed.current();
    expect(version).toBeTypeOf('number');
    for (let i = 0; i < 50; i++) {
      await writer.query('select pg_notify($1, $2)', [CATALOGUE_CHANGED_CHANNEL, String(i)]);
      const next = await feed.current();
      expect({ i, moved: (next as number) > (version as number) }).toEqual({ i, moved: true });
      version = next;
    }
  });
});
