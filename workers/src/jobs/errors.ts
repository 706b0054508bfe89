/**
 * A failure that another attempt cannot fix (a corrupt upload, an unsupported format): the job
 * fails at once, without retries, and `message` is what the uploader reads.
 */
export class PermanentJobError extends Error {
  readonly permanent = true;
  constructor(
    message: string,
    /** The last lines of the tool's own error output, kept for operators. */
    readonly detail?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

export class JobTimeoutError extends Error {
  constructor(name: string, timeoutMs: number) {
    super(
      `job ${name} did not finish within ${timeoutMs < 10_000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`,
    );
    this.name = 'JobTimeoutError';
  }
}

export function isPermanentFailure(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { permanent?: unknown }).permanent === true;
}

/** The last `maxLines` lines of a text, for failure reasons that carry a tool's stderr. */
export function tail(text: string | undefined, maxLines = 8, maxChars = 1500): string | undefined {
  if (!text) return undefined;
  const lines = text.trimEnd().split('\n');
  const kept = lines.slice(-maxLines).join('\n');
  return kept.length > maxChars ? kept.slice(-maxChars) : kept;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
