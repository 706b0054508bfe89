import { BROAD_SOUND_TAXONOMY, categoryCode, LICENSES } from '@earshot/catalogue';
import { EarshotError, NotFoundError } from '@earshot/common';
import { ACCEPTED_TYPES } from '@earshot/core';
import type { Context } from 'koa';
import { failureReason, processingPercent } from '../../application/pending-uploads.ts';
import type { SoundWrites } from '../../application/ports.ts';
import { CSRF_FIELD, CSRF_HEADER, sameToken } from '../../framework/auth/session-strategy.ts';
import { requestOrigin } from '../../framework/http/origin.ts';
import { parseId } from '../../framework/http/params.ts';
import { type BodyLimitOverride, filesAllowance } from '../../framework/middleware/body-limit.ts';
import { serializePendingUploads } from '../../v2/presenters/pending-uploads.ts';
import { readAudiofileForm } from '../../v2/routes/uploads.ts';
import { pendingScriptUrl, uploadScriptUrl } from '../assets.ts';
import type { WebDeps } from '../deps.ts';
import { render, renderError } from '../render.ts';
import { formFields, webState } from '../state.ts';

export const UPLOAD_PATH = '/upload/';
export const DESCRIBE_PATH = '/upload/describe/';
export const PENDING_PATH = '/upload/pending/';
export const PENDING_JSON_PATH = '/upload/pending.json';

/** The upload form's body limit: the file at its largest plus the text fields, as the API's upload. */
export function webUploadBodyLimit(maxUploadBytes: number): BodyLimitOverride {
  return { method: 'POST', path: /^\/upload\/?$/, ...filesAllowance([['audiofile', maxUploadBytes]]) };
}

/** The file input's `accept`: the accepted extensions, and any audio type for pickers that go by type. */
const ACCEPT = [...ACCEPTED_TYPES.map((type) => `.${type}`), 'audio/*'].join(',');

/** The describe form's fields, as the API's describe resource takes them. */
const DESCRIBE_FIELDS = ['name', 'bst_category', 'tags', 'description', 'license', 'pack', 'geotag'] as const;

/** The Broad Sound Taxonomy as the describe form's choices (`fx-a` → "Sound effects: Animals"). */
const CATEGORY_CHOICES = BROAD_SOUND_TAXONOMY.map((c) => ({
  label: c.name,
  options: c.subcategories.map((s) => ({ code: categoryCode(c.name, s.name), name: s.name })),
}));

function userId(ctx: Context): number {
  return webState(ctx).user!.id;
}

/** GET /upload/: the file form (the transfer's progress is shown by upload.js when scripts run). */
export function showUpload() {
  return async (ctx: Context) => {
    await uploadPage(ctx, {});
  };
}

async function uploadPage(ctx: Context, view: { error?: string }): Promise<void> {
  await render(ctx, 'upload', {
    error: view.error,
    script: uploadScriptUrl,
    pendingPath: PENDING_PATH,
    accept: ACCEPT,
  });
}

/**
 * POST /upload/ (multipart): the file streams to disk through the same upload use case as the API's
 * `sounds/upload/` (file alone: pending description), then 303 to the describe form. The CSRF token
 * is a field of the multipart form (or the X-CSRF-Token header), so it is checked once the form is
 * read, before the file is kept: a refused form's file is deleted.
 */
export function submitUpload(writes: SoundWrites) {
  return async (ctx: Context) => {
    const form = await readAudiofileForm(ctx, writes);
    const expected = webState(ctx).webSession?.csrfToken;
    const sent = form.fields[CSRF_FIELD] ?? ctx.get(CSRF_HEADER);
    if (!expected || !sameToken(sent, expected)) {
      if (form.file) await writes.discard(form.file);
      await renderError(ctx, 403, {
        title: 'This form has expired',
        message:
          'The upload was sent without a valid security token. Reload the upload page and send it again.',
        retryPath: UPLOAD_PATH,
      });
      return;
    }
    if (!form.file) {
      ctx.status = 400;
      await uploadPage(ctx, { error: 'Choose an audio file to upload.' });
      return;
    }
    try {
      const outcome = await writes.upload(userId(ctx), form.file, {});
      const filename = 'filename' in outcome ? outcome.filename : '';
      ctx.status = 303;
      ctx.redirect(`${DESCRIBE_PATH}?file=${encodeURIComponent(filename)}`);
    } catch (err) {
      if (!(err instanceof EarshotError) || err.status >= 500) throw err;
      ctx.status = err.status;
      await uploadPage(ctx, { error: err.message });
    }
  };
}

/** GET /upload/describe/?file=NAME: the description form of one of the user's files pending description. */
export function showDescribe(writes: SoundWrites) {
  return async (ctx: Context) => {
    const file = typeof ctx.query.file === 'string' ? ctx.query.file : '';
    const pending = await writes.pending(userId(ctx));
    if (!pending.pending_description.includes(file)) {
      await renderError(ctx, 404, {
        title: 'No such upload',
        message: 'That file is not waiting for a description. Your pending uploads list the ones that are.',
        retryPath: PENDING_PATH,
      });
      return;
    }
    await describePage(ctx, { file, values: { name: file.replace(/\.[^.]+$/, '') }, errors: {} });
  };
}

async function describePage(
  ctx: Context,
  view: { file: string; values: Record<string, string>; errors: Record<string, string>; error?: string },
): Promise<void> {
  await render(ctx, 'describe', {
    ...view,
    categories: CATEGORY_CHOICES,
    licenses: LICENSES,
    action: DESCRIBE_PATH,
  });
}

/**
 * POST /upload/describe/: the API's describe use case; the sound is created and processing starts.
 * 303 to the processing page; a refused field shows the form again (400) with the message beside it.
 */
export function submitDescribe(writes: SoundWrites) {
  return async (ctx: Context) => {
    const form = formFields(ctx);
    const file = form.upload_filename ?? '';
    const values: Record<string, string> = {};
    for (const f of DESCRIBE_FIELDS) values[f] = form[f] ?? '';
    // Blank optional fields are not sent: the use case reads absence, not an empty text.
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(values)) if (v.trim() !== '') fields[k] = v;
    try {
      const { id } = await writes.describe(userId(ctx), { ...fields, upload_filename: file });
      ctx.status = 303;
      ctx.redirect(`${PENDING_PATH}?described=${id}`);
    } catch (err) {
      if (err instanceof NotFoundError || !(err instanceof EarshotError) || err.status >= 500) throw err;
      const errors: Record<string, string> = {};
      const details = err.details;
      if (details && typeof details === 'object') {
        for (const [k, v] of Object.entries(details as Record<string, unknown>)) {
          errors[k] = Array.isArray(v) ? v.join(' ') : String(v);
        }
      }
      ctx.status = err.status;
      await describePage(ctx, {
        file,
        values,
        errors,
        error: Object.keys(errors).length
          ? 'The sound was not described: see the fields marked below.'
          : err.message,
      });
    }
  };
}

/**
 * GET /upload/pending/: the user's uploads not yet public, as the API's pending uploads record
 * lists them: files to describe, sounds in processing (stage and percent), failed ones with the
 * reason, and sounds waiting for a moderator. pending.js keeps it current; without scripts, a
 * refresh link.
 */
export function showPending(writes: SoundWrites) {
  return async (ctx: Context) => {
    const record = await writes.pending(userId(ctx));
    const described = parseId(ctx.query.described);
    await render(ctx, 'pending', {
      describe: record.pending_description.map((f) => ({
        name: f,
        path: `${DESCRIBE_PATH}?file=${encodeURIComponent(f)}`,
      })),
      processing: record.pending_processing
        .filter((s) => s.processing_state !== 'Failed')
        .map((s) => ({
          id: s.id,
          name: s.name,
          state: s.processing_state,
          stage: s.processing_stage,
          percent: processingPercent(s),
        })),
      failed: record.pending_processing
        .filter((s) => s.processing_state === 'Failed')
        .map((s) => ({ id: s.id, name: s.name, reason: failureReason(s) })),
      moderation: record.pending_moderation.map((s) => ({ id: s.id, name: s.name })),
      notice:
        described !== undefined
          ? `Sound ${described} is described: it is being processed, then a moderator will look at it.`
          : undefined,
      source: PENDING_JSON_PATH,
      script: pendingScriptUrl,
      uploadPath: UPLOAD_PATH,
    });
  };
}

/** GET /upload/pending.json: the same record as the API's `sounds/pending_uploads/`, for pending.js. */
export function pendingJson(deps: WebDeps, writes: SoundWrites) {
  return async (ctx: Context) => {
    const record = await writes.pending(userId(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = serializePendingUploads(record, requestOrigin(ctx, deps));
  };
}
