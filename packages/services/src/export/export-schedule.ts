import { randomBytes } from 'node:crypto';
import os from 'node:os';
import {
  acquireTaskLease,
  type Db,
  decodeChangeCursor,
  isAfterChange,
  lastSoundChange,
  releaseTaskLease,
  renewTaskLease,
} from '@earshot/catalogue';
import { EarshotError, type Logger } from '@earshot/common';
import { type ExportInfo, latestExport, writeCatalogueExport } from './catalogue-export.ts';

/**
 * When the bulk export is made again by itself (docs/api.md, "Beyond the contract"): only when the
 * public catalogue changed since the last one, and then once the changes have settled (none for
 * `settleMs`), or, when changes never stop, once the last export is `maxAgeMs` old. A catalogue
 * without an export gets one at once.
 */
export interface ExportSchedule {
  settleMs: number;
  maxAgeMs: number;
}

export const DEFAULT_EXPORT_SCHEDULE: ExportSchedule = { settleMs: 10 * 60_000, maxAgeMs: 6 * 3_600_000 };

/** Why an export is due now, or undefined when it is not. */
export type ExportDue = 'no export yet' | 'changes settled' | 'export too old';

/** The latest committed change of the catalogue, as `lastSoundChange` reads it. */
type LastChange = Awaited<ReturnType<typeof lastSoundChange>>;

/** Decides whether an export is due, from the latest export and the latest change. */
export function exportDue(
  latest: Pick<ExportInfo, 'created' | 'cursor'> | undefined,
  lastChange: LastChange,
  now: Date,
  schedule: ExportSchedule,
): ExportDue | undefined {
  if (!latest) return 'no export yet';
  if (!lastChange || !isAfterChange(lastChange.position, decodeChangeCursor(latest.cursor))) return undefined;
  if (now.getTime() - lastChange.changedAt.getTime() >= schedule.settleMs) return 'changes settled';
  if (now.getTime() - Date.parse(latest.created) >= schedule.maxAgeMs) return 'export too old';
  return undefined;
}

/** The name of the export's lease in the catalogue: one writer at a time across every host. */
export const EXPORT_TASK = 'catalogue_export';

/** Another process is writing the export now. */
export class ExportBusyError extends EarshotError {
  constructor() {
    super('Another process is writing the export now; try again when it has finished.', 'export_busy', 409);
  }
}

export interface RunExportOptions {
  onProgress?: (sounds: number) => void;
  /** Stops the writer (a job's timeout, a shutdown) before it publishes anything. */
  signal?: AbortSignal;
  /** How long the lease lives without renewal: how soon a dead writer's successor may start. */
  leaseMs?: number;
}

/**
 * Writes the export holding the catalogue's export lease (`runCatalogueExport` for `earshot
 * export`). Throws ExportBusyError when another process holds it.
 */
export async function runCatalogueExport(
  db: Db,
  dataDir: string,
  origin: string,
  options: RunExportOptions = {},
): Promise<ExportInfo> {
  return withExportLease(db, options, (signal) =>
    writeCatalogueExport(db, dataDir, origin, options.onProgress, signal),
  );
}

/**
 * Runs `work` holding the export's lease, renewed while it works: a process that loses it (paused
 * past its expiry, the catalogue unreachable) is aborted before publishing, so two writers never
 * publish over each other.
 */
async function withExportLease<T>(
  db: Db,
  options: Pick<RunExportOptions, 'signal' | 'leaseMs'>,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const leaseMs = options.leaseMs ?? 60_000;
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const lease = await acquireTaskLease(db, EXPORT_TASK, owner, leaseMs);
  if (!lease) throw new ExportBusyError();
  const lost = new AbortController();
  const heartbeat = setInterval(() => {
    renewTaskLease(db, lease, leaseMs).then(
      (held) => {
        if (!held) lost.abort(new ExportBusyError());
      },
      () => {}, // the catalogue is unreachable: the writer's own reads fail too
    );
  }, leaseMs / 3);
  heartbeat.unref();
  try {
    return await work(options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal);
  } finally {
    clearInterval(heartbeat);
    if (!lost.signal.aborted) await releaseTaskLease(db, lease).catch(() => {});
  }
}

export interface RefreshExportOptions {
  schedule?: ExportSchedule;
  signal?: AbortSignal;
  logger?: Logger;
  now?: () => Date;
  leaseMs?: number;
}

/**
 * The export job: writes a new export when one is due (`exportDue`), else nothing. Whether it is
 * due is decided again under the lease, so a check queued beside a run that just published writes
 * nothing. Answers what it wrote; undefined when nothing was due or another process was writing.
 */
export async function refreshCatalogueExport(
  db: Db,
  dataDir: string,
  origin: string,
  options: RefreshExportOptions = {},
): Promise<ExportInfo | undefined> {
  const schedule = options.schedule ?? DEFAULT_EXPORT_SCHEDULE;
  const now = options.now ?? (() => new Date());
  const due = async () => exportDue(await latestExport(dataDir), await lastSoundChange(db), now(), schedule);
  if (!(await due())) return undefined;
  try {
    return await withExportLease(db, options, async (signal) => {
      const reason = await due();
      if (!reason) return undefined;
      const info = await writeCatalogueExport(db, dataDir, origin, undefined, signal);
      options.logger?.info({ due: reason, sounds: info.sounds, file: info.file }, 'export: written');
      return info;
    });
  } catch (err) {
    if (!(err instanceof ExportBusyError)) throw err;
    options.logger?.info('export: another process is writing it');
    return undefined;
  }
}
