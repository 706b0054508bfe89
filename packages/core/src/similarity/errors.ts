import { NotFoundError, ValidationError } from '@earshot/common/errors';

/** A similarity space name that is not registered. */
export class UnknownSimilaritySpaceError extends ValidationError {
  constructor(
    readonly space: string,
    known: readonly string[],
  ) {
    super(`Unknown similarity space "${space}"; known: ${known.join(', ')}`, { similarity_space: space });
  }
}

/** A vector whose length does not match its space. */
export class VectorDimensionError extends ValidationError {
  constructor(space: string, expected: number, actual: number) {
    super(`Vector for ${space} must have ${expected} dimensions, got ${actual}`, { expected, actual });
  }
}

/** A vector holding NaN/Infinity, or all zeros (it has no direction to compare). */
export class InvalidVectorError extends ValidationError {}

/** A descriptor name that the descriptor table does not hold (or that is not fixed-length numeric). */
export class UnknownDescriptorError extends ValidationError {
  constructor(
    readonly descriptor: string,
    hint = '',
  ) {
    super(`Unknown descriptor "${descriptor}"${hint ? `; ${hint}` : ''}`, { descriptor });
  }
}

/** A malformed content-search target (`name:value` pairs or a sound id). */
export class InvalidTargetError extends ValidationError {}

/** An analysis that lacks descriptors a similarity space is computed from. */
export class IncompleteAnalysisError extends ValidationError {
  constructor(
    space: string,
    readonly missing: readonly string[],
  ) {
    const shown =
      missing.slice(0, 5).join(', ') + (missing.length > 5 ? `, … (${missing.length} in all)` : '');
    super(`Analysis lacks descriptors needed by similarity space ${space}: ${shown}`, { missing });
  }
}

/** A sound that is not in the similarity index (unknown, unanalyzed or removed). */
export class SoundNotIndexedError extends NotFoundError {
  constructor(readonly soundId: number) {
    super(`Sound ${soundId} is not in the similarity index`, { sound_id: soundId });
  }
}

/**
 * A similarity snapshot folder that cannot be loaded: its meta file is unreadable or of another
 * format, or it does not fit the space it names or the index it is loaded into. (A folder with no
 * snapshot at all is a NotFoundError.)
 */
export class SnapshotError extends Error {
  constructor(
    readonly dir: string,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

/** A sound id that is not a positive integer below 2^32 (hnswlib labels are unsigned 32-bit). */
export class InvalidSoundIdError extends ValidationError {
  constructor(value: unknown) {
    super(`Sound id must be a positive integer below 4294967296, got ${String(value)}`);
  }
}
