// Worker-thread entry: the process's posting index (issue 33), built or read from its snapshot,
// kept current with the catalogue, and searched here, so a search over hundreds of thousands of
// matches never holds up the event loop that answers every other request.
import { AsyncLocalStorage } from 'node:async_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { type ChangeVersion, LiveSearchIndex, openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { searchIndexSnapshotStore } from './search-index-snapshot.ts';
import type { TextIndexMessage, TextIndexRequest, TextIndexThreadData } from './text-index-protocol.ts';

const data = workerData as TextIndexThreadData;
const post = (message: TextIndexMessage) => parentPort?.postMessage(message);
const logger = createLogger(data.logLevel, 'earshot', {
  write: (line: string) => post({ kind: 'log', line }),
});

/** The version each question was asked under: the index catches up to it before answering. */
const asked = new AsyncLocalStorage<number | undefined>();
const changes: ChangeVersion = {
  current: () => Promise.resolve(asked.getStore()),
  onChange: () => {},
  beforeRequest: () => Promise.resolve(undefined),
  close: () => Promise.resolve(),
};

const catalogue = await openCatalogue({
  config: { DATABASE_URL: data.databaseUrl, dataDir: data.snapshotDir ?? '' },
  logger,
  role: 'worker',
  migrate: false,
  // Catch-up reads and the terms of new words: a few at a time.
  poolSize: 3,
});
// One thread builds or reads the lists and shares them; the others adopt them, each then
// holding only its own columns and the maps of the lists' names.
const shares = data.shares === true;
const snapshots = data.snapshotDir
  ? searchIndexSnapshotStore(data.snapshotDir, { sharedMemory: shares })
  : undefined;
const index = data.base
  ? new LiveSearchIndex(catalogue.db, changes, { logger, snapshots, rebuilds: false }).adopt(data.base)
  : new LiveSearchIndex(catalogue.db, changes, {
      logger,
      snapshots,
      share: shares ? (bytes) => post({ kind: 'base', bytes }) : undefined,
      rebuildShare: data.rebuildShare,
      rebuildAtLeast: data.rebuildAtLeast,
    }).start();

// Ready is told once: the index stays ready through its background rebuilds.
const waitReady = setInterval(() => {
  if (!index.isReady()) return;
  clearInterval(waitReady);
  post({ kind: 'ready' });
}, 100);

parentPort?.on('message', (question: TextIndexRequest) => {
  if (question === 'close') {
    clearInterval(waitReady);
    index.close();
    // The thread ends once nothing holds it: the pool's connections closed, no timer left.
    void catalogue.close().then(() => parentPort?.close());
    return;
  }
  if ('kind' in question) {
    index.adopt(question.bytes);
    return;
  }
  asked
    .run(question.version, () =>
      index.search(question.search, question.budgetMs === undefined ? {} : { budgetMs: question.budgetMs }),
    )
    .then(
      (result) => post({ kind: 'answer', id: question.id, result }),
      (err: unknown) =>
        post({ kind: 'failed', id: question.id, message: err instanceof Error ? err.message : String(err) }),
    );
});
