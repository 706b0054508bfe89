import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { type Catalogue, createUser, openCatalogue } from '@earshot/catalogue';
import { createTestDatabase, freshDataDir } from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoundStorage } from '../storage/sound-files.ts';
import { queueImports } from './bulk-import.ts';
import { SoundIntake } from './sound-intake.ts';

const postgresUrl = await testService('postgres');

type Loss = 'before-commit' | 'after-commit';

// The statement `commit` in a Query or Parse message: a length or an empty statement name before it.
const COMMIT = /[\0-\x1f]commit\0/i;

/**
 * A TCP relay to the PostgreSQL server that loses the connection of the next transaction's COMMIT
 * once armed: `before-commit` drops it with the COMMIT unsent (the server rolls the transaction
 * back), `after-commit` sends it and drops the connection once the server has answered, so the
 * transaction is committed and the client never hears so — what a host killed at that instant does.
 */
class LossyRelay {
  readonly server: net.Server;
  #armed: Loss | undefined;
  fired: Loss | undefined;

  constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(target);
      let committing = false;
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('data', (chunk: Buffer) => {
        const loss = this.#armed;
        if (loss && COMMIT.test(chunk.toString('latin1'))) {
          this.#armed = undefined;
          this.fired = loss;
          if (loss === 'before-commit') return drop();
          committing = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (committing) return drop();
        client.write(chunk);
      });
      for (const socket of [client, upstream]) {
        socket.on('error', drop);
        socket.on('close', drop);
      }
    });
  }

  arm(loss: Loss): void {
    this.#armed = loss;
    this.fired = undefined;
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }
}

/**
 * A bulk import whose database connection is lost at a COMMIT — the embedded host killed while
 * `earshot import` follows it, or a server going away — carries on, and each file becomes exactly
 * one sound: the attempt that committed unheard is kept (not taken in a second time), the one rolled
 * back is made again (its stored original removed). Before, the import gave up at the lost
 * connection (issue 31, item 10).
 */
describe.skipIf(!postgresUrl)('queueImports when the connection is lost around a COMMIT', () => {
  let relay: LossyRelay;
  let catalogue: Catalogue;
  let dropDatabase: () => Promise<void>;
  let storage: SoundStorage;
  let userId: number;

  beforeAll(async () => {
    const { url, drop } = await createTestDatabase(postgresUrl!);
    dropDatabase = drop;
    const target = new URL(url);
    relay = new LossyRelay({ host: target.hostname, port: Number(target.port || 5432) });
    const relayed = new URL(url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(await relay.listen());
    storage = new SoundStorage(await freshDataDir());
    catalogue = await openCatalogue({
      config: { dataDir: storage.dataDir, DATABASE_URL: relayed.toString() },
      logger: createLogger('silent'),
    });
    userId = (await createUser(catalogue.db, { username: 'importer' })).id;
  });

  afterAll(async () => {
    await catalogue?.close();
    relay?.server.close();
    await dropDatabase?.();
    if (storage) await fs.rm(storage.dataDir, { recursive: true, force: true });
  });

  it.each<Loss>(['after-commit', 'before-commit'])(
    'connection lost %s: every file one sound',
    async (loss) => {
      // File names without the word: the relay looks for the statement `commit`.
      const prefix = loss === 'after-commit' ? 'unheard' : 'unsent';
      const inputs = await fs.mkdtemp(path.join(storage.dataDir, `in-${prefix}-`));
      const files: string[] = [];
      for (let i = 0; i < 3; i++) {
        const file = path.join(inputs, `${prefix}-${i}.wav`);
        // Distinct contents and sizes per run: the catalogue refuses a file it holds already.
        await fs.writeFile(
          file,
          Buffer.alloc(1000 + i + (loss === 'after-commit' ? 0 : 10), `${prefix}${i}`),
        );
        files.push(file);
      }
      const submitted: number[] = [];
      const queue = {
        submit: async (soundId: number) => {
          submitted.push(soundId);
        },
        isBusy: async () => false,
      };

      // The second file's transaction loses its connection at its COMMIT.
      const queued = await queueImports(new SoundIntake(catalogue.db, storage), queue, files, {
        userId,
        onQueued: (_file, _id) => {
          if (submitted.length === 1) relay.arm(loss);
        },
      });
      expect(relay.fired).toBe(loss);

      const sounds = await catalogue.db
        .selectFrom('sounds')
        .select(['id', 'original_filename', 'original_path'])
        .where('original_filename', 'like', `${prefix}-%`)
        .orderBy('original_filename')
        .execute();
      expect(sounds.map((s) => s.original_filename)).toEqual(files.map((f) => path.basename(f)));
      expect(queued.map((q) => q.soundId)).toEqual(sounds.map((s) => s.id));
      expect(submitted).toEqual(sounds.map((s) => s.id));
      for (const [i, sound] of sounds.entries()) {
        const stored = await fs.readFile(storage.absolute(sound.original_path));
        expect(stored.equals(await fs.readFile(files[i]))).toBe(true);
      }
      // No stored original of a record that was rolled back.
      const folders = (await fs.readdir(storage.root, { recursive: true }))
        .map(String)
        .filter((p) => p.split(path.sep).length === 2)
        .map((p) => Number(path.basename(p)));
      const all = await catalogue.db.selectFrom('sounds').select('id').execute();
      expect(folders.sort((a, b) => a - b)).toEqual(all.map((s) => s.id).sort((a, b) => a - b));
    },
  );
});
