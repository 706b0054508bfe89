import { ValidationError } from '@earshot/common';

/**
 * The one encoding of the opaque cursors the API hands out (the changes feed's `since`, a list
 * walk's `cursor`): base64url of `<kind><number>.<number>`, a bigint (decimal text) and a 31-bit
 * integer. `kind` tells the cursors apart ('' for the feed's, whose text predates the others and
 * must not change: harvesters keep them).
 */
export interface CursorPosition {
  /** A non-negative bigint as decimal text. */
  major: string;
  /** A non-negative 31-bit integer. */
  minor: number;
}

export function encodePositionCursor(kind: string, position: CursorPosition): string {
  return Buffer.from(`${kind}${position.major}.${position.minor}`).toString('base64url');
}

/** Reads a cursor `encodePositionCursor` made with `kind`; anything else is a 400 naming the parameter. */
export function decodePositionCursor(kind: string, cursor: string, parameter: string): CursorPosition {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = text.startsWith(kind) ? /^(\d{1,19})\.(\d{1,10})$/.exec(text.slice(kind.length)) : null;
  const major = match ? BigInt(match[1]) : -1n;
  const minor = match ? Number(match[2]) : -1;
  if (!match || major >= 2n ** 63n || minor > 2 ** 31 - 1)
    throw new ValidationError(`${parameter}: not a cursor this server handed out`);
  return { major: major.toString(), minor };
}
