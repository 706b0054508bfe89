import { type Kysely, sql } from 'kysely';

/** Resolves when the database answers a trivial query (health checks). */
export async function pingCatalogue(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}
