import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  addPendingUpload,
  addPendingUploadUnlessSameSize,
  ConflictError,
  type Db,
  listPendingSounds,
  listPendingUploads,
  restorePendingUpload,
  type SoundView,
  takePendingUpload,
} from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import {
  checkDuration,
  checkProbedLength,
  type Ffmpeg,
  type HeaderProbe,
  MediaError,
  type ProbeResult,
  probeFile,
  probeFileHeader,
  typeFromExtension,
} from '@earshot/core';
import type { ProcessingQueue } from '../processing/processing-queue.ts';
import type { SoundStorage } from '../storage/sound-files.ts';
import {
  DescriptionError,
  hasDescription,
  type RawDescription,
  type SoundDescription,
  validateDescription,
} from './description-fields.ts';
import type { SameFileVerdict } from './same-file-check.ts';
import { DuplicateUploadError, SoundIntake } from './sound-intake.ts';
import { type ReceivedFile, UploadReceiver } from './upload-receiver.ts';

export type UploadOutcome = { detail: string; filename: string } | { detail: string; id: number };

export interface PendingUploadsRecord {
  pending_description: string[];
  pending_processing: SoundView[];
  pending_moderation: SoundView[];
}

/** How much of an upload must be on disk before it is probed (a header with room to spare). */
const EARLY_PROBE_BYTES = 1024 * 1024;

const DESCRIBED = 'Audio file successfully uploaded and described (now pending processing and moderation).';

/**
 * The uploads of the API (upload, describe, pending uploads): files that arrived through
 * UploadReceiver become pending descriptions or sounds through the one SoundIntake the import
 * uses, with the one field validator (description-fields.ts), and go to the pipeline through the
 * ProcessingQueue port.
 */
export class SoundUploads {
  readonly receiver: UploadReceiver;
  private readonly intake: SoundIntake;
  /** UPLOAD_MAX_SECONDS: the longest sound taken (the pipeline refuses longer ones too). */
  private readonly maxSeconds: number | undefined;
  /** The ffprobe uploads are judged with (default: core's `defaultFfmpeg()`). */
  private readonly ffmpeg: Ffmpeg | undefined;

  constructor(
    private readonly db: Db,
    private readonly storage: SoundStorage,
    private readonly queue: ProcessingQueue,
    options: { maxBytes: number; maxSeconds?: number; partialLeaseMs?: number; ffmpeg?: Ffmpeg },
  ) {
    this.receiver = new UploadReceiver(storage.dataDir, options.maxBytes, {
      leaseMs: options.partialLeaseMs,
    });
    this.intake = new SoundIntake(db, storage);
    this.maxSeconds = options.maxSeconds;
    this.ffmpeg = options.ffmpeg;
  }

  /**
   * Streams an upload to the data folder (UploadReceiver), judging it as soon as its first MiB is
   * there: from its header alone when that says enough (WAV, AIFF, FLAC), else with ffprobe, whose
   * start-up then overlaps the transfer instead of following it.
   */
  receive(stream: Readable, filename: string): Promise<ReceivedFile> {
    return this.receiver.receive(stream, filename, {
      prefixBytes: EARLY_PROBE_BYTES,
      onPrefix: async (file) =>
        (await probeFileHeader(file, filename)) ??
        probeFile(file, { fileName: filename, md5: '', partial: true, ffmpeg: this.ffmpeg }),
    });
  }

  /** Refuses a file by its name before a byte of it is stored (a name we would not take anyway). */
  checkFilename(filename: string): void {
    if (path.extname(filename) !== '' && !typeFromExtension(filename))
      throw audiofileError(new MediaError('unsupported_format'));
  }

  /**
   * Takes in a received file: with a description (any of its fields given) it becomes a sound and
   * is queued; alone it waits for `describe`. The file is checked (not empty, audio we take, not
   * in the catalogue already: SoundIntake's rule, for a pending file too) before anything is
   * recorded; on any refusal it is removed.
   */
  async upload(userId: number, file: ReceivedFile, fields: RawDescription): Promise<UploadOutcome> {
    try {
      const described = hasDescription(fields);
      const description = described ? validateDescription(fields, 'describe') : undefined;
      await this.checkAudio(file);
      if (!description) return await this.keepPending(userId, file);
      const id = await this.createSound(userId, file.path, file.filename, description, { size: file.size });
      return { detail: DESCRIBED, id };
    } finally {
      // Moved into place on success; whatever is left is a refused file.
      await this.receiver.discard(file);
    }
  }

  /** Describes a file pending description: it becomes a sound, queued for processing. */
  async describe(
    userId: number,
    fields: RawDescription & { upload_filename?: string },
  ): Promise<{ detail: string; id: number }> {
    const uploadName = fields.upload_filename?.trim();
    let description: SoundDescription | undefined;
    let problems: Record<string, string[]> = {};
    try {
      description = validateDescription(fields, 'describe');
    } catch (err) {
      if (!(err instanceof DescriptionError)) throw err;
      problems = err.fields;
    }
    if (!uploadName) problems = { upload_filename: ['This field is required.'], ...problems };
    if (Object.keys(problems).length || !description || !uploadName) throw new DescriptionError(problems);
    // Taking the row is the claim: of two describes of one file, one gets it.
    const pending = await takePendingUpload(this.db, userId, uploadName);
    if (!pending) {
      throw new DescriptionError({
        upload_filename: [
          `Upload filename (${uploadName}) must match with a filename from 'Pending Uploads' resource.`,
        ],
      });
    }
    try {
      const id = await this.createSound(
        userId,
        this.storage.absolute(pending.stored_path),
        pending.filename,
        description,
        {
          md5: pending.md5 ?? undefined,
          size: Number(pending.filesize),
          crc32: pending.crc32,
        },
      );
      await fs.rm(path.dirname(this.storage.absolute(pending.stored_path)), { recursive: true, force: true });
      return { detail: 'Sound successfully described (now pending processing and moderation).', id };
    } catch (err) {
      await restorePendingUpload(this.db, pending);
      throw err;
    }
  }

  /** What the user uploaded that is not public yet (failed processing included, with its reason). */
  async pending(userId: number): Promise<PendingUploadsRecord> {
    const [files, sounds] = await Promise.all([
      listPendingUploads(this.db, userId),
      listPendingSounds(this.db, userId),
    ]);
    return { pending_description: files.map((f) => f.filename), ...sounds };
  }

  private async checkAudio(file: ReceivedFile): Promise<void> {
    this.checkFilename(file.filename);
    try {
      // The judgement of the file's head, when it found audio, stands (the pipeline probes the whole
      // file again); whatever could not be judged from the head alone (an m4a whose index is at the
      // end) is probed again now that the file is whole. A file too small for the early look is
      // judged now, by its header when that is plain.
      const early = (await file.early) as HeaderProbe | ProbeResult | Error | undefined;
      const judged =
        early && !(early instanceof Error) ? early : await probeFileHeader(file.path, file.filename);
      if (judged) {
        // A header's stated length is exact; ffprobe's look at a partial file only guesses one
        // (that file's length is the pipeline's probe to refuse).
        if (!('raw' in judged)) checkDuration(judged.duration, this.maxSeconds);
        await checkProbedLength(file.path, judged);
      }
      // Not hashed here: the duplicate rule is the intake's (by size first, see same-file-check.ts).
      else
        await probeFile(file.path, {
          fileName: file.filename,
          md5: false,
          maxDuration: this.maxSeconds,
          ffmpeg: this.ffmpeg,
        });
    } catch (err) {
      if (err instanceof MediaError) throw audiofileError(err);
      throw err;
    }
  }

  /**
   * Moves the file to the user's pending folder and records it under a name no other pending file
   * of theirs has. When no original of its size exists (the common case) the record is one round
   * trip, its duplicate check included; otherwise the duplicate rule hashes it first.
   */
  private async keepPending(userId: number, file: ReceivedFile): Promise<UploadOutcome> {
    const dir = path.join(
      this.storage.dataDir,
      'uploads',
      'pending',
      String(userId),
      randomBytes(8).toString('hex'),
    );
    const stored = path.join(
      dir,
      `file${path
        .extname(file.filename)
        .toLowerCase()
        .replace(/[^.a-z0-9]/g, '')}`,
    );
    await fs.mkdir(dir, { recursive: true });
    await fs.rename(file.path, stored);
    const entry = { userId, storedPath: this.storage.relative(stored), filesize: file.size };
    let checked: SameFileVerdict | undefined;
    const record = async (filename: string): Promise<void> => {
      if (!checked) {
        if (await addPendingUploadUnlessSameSize(this.db, { ...entry, filename })) return;
        checked = await this.intake.sameFile({ path: stored, size: file.size });
        if (checked.holder !== undefined) throw new DuplicateUploadError(checked.holder);
      }
      const { digests } = checked;
      await addPendingUpload(this.db, { ...entry, filename, md5: digests?.md5, crc32: digests?.crc32 });
    };
    try {
      for (let n = 1; ; n++) {
        const filename = n === 1 ? file.filename : numbered(file.filename, n);
        try {
          await record(filename);
          return {
            detail: `Audio file successfully uploaded (${file.size} Bytes, now pending description).`,
            filename,
          };
        } catch (err) {
          if (!(err instanceof ConflictError) || n >= 1000) throw err;
        }
      }
    } catch (err) {
      await fs.rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  private async createSound(
    userId: number,
    filePath: string,
    filename: string,
    d: SoundDescription,
    file: { md5?: string; size?: number; crc32?: number | null },
  ): Promise<number> {
    const id = await this.intake.create({
      userId,
      file: filePath,
      originalFilename: filename,
      name: d.name,
      tags: d.tags,
      description: d.description,
      license: d.license,
      category: d.category,
      subcategory: d.subcategory,
      packName: d.packName ?? undefined,
      geotag: d.geotag,
      md5: file.md5,
      filesize: file.size,
      crc32: file.crc32,
      move: true,
    });
    await this.queue.submit(id);
    return id;
  }
}

/** `take.wav` → `take (2).wav`: a second pending file of the same name. */
function numbered(filename: string, n: number): string {
  const ext = path.extname(filename);
  return `${filename.slice(0, filename.length - ext.length)} (${n})${ext}`;
}

/** A refused audio file, as the contract's per-field detail. */
function audiofileError(err: MediaError): EarshotError {
  return new EarshotError(err.message, err.code, 400, { audiofile: [err.message] });
}
