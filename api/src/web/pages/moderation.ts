import { ValidationError } from '@earshot/common';
import { listPendingModeration, MODERATION_REASON_MAX, moderate } from '@earshot/services';
import type { Context } from 'koa';
import { FILE_NAMES, fileKindByName } from '../../application/file-names.ts';
import { sendFile } from '../../framework/files/send-file.ts';
import { parseId } from '../../framework/http/params.ts';
import type { WebDeps } from '../deps.ts';
import { render, renderError } from '../render.ts';
import { formFields, webState } from '../state.ts';

export const MODERATION_PATH = '/apiv2/moderation/';

/** Where the page's player and images read a sound's files (moderators only, any state). */
export function moderationFileUrl(soundId: number, file: string): string {
  return `${MODERATION_PATH}sounds/${soundId}/${file}`;
}

/** GET /apiv2/moderation/: the sounds waiting for a moderator, oldest first. */
export function showModeration(deps: WebDeps) {
  return async (ctx: Context) => {
    const id = parseId(ctx.query.approved ?? ctx.query.rejected);
    const notice =
      id !== undefined ? `Sound ${id} is ${ctx.query.approved ? 'approved' : 'rejected'}.` : undefined;
    await page(ctx, deps, { notice });
  };
}

/** POST /apiv2/moderation/: approve, or reject with a reason, one sound; back to the list. */
export function submitModeration(deps: WebDeps) {
  return async (ctx: Context) => {
    const user = webState(ctx).user!;
    const form = formFields(ctx);
    const soundId = parseId(form.sound_id);
    const decision = form.decision;
    const reason = (form.reason ?? '').trim();
    if (soundId === undefined || (decision !== 'approve' && decision !== 'reject')) {
      throw new ValidationError('The form does not name a sound and a decision.');
    }
    if (decision === 'reject' && (!reason || reason.length > MODERATION_REASON_MAX)) {
      ctx.status = 400;
      const message = reason
        ? `Use at most ${MODERATION_REASON_MAX} characters for the reason.`
        : 'Give the reason for rejecting this sound: its uploader will read it.';
      await page(ctx, deps, {
        error: `Sound ${soundId} was not rejected: ${message.charAt(0).toLowerCase()}${message.slice(1)}`,
        fieldError: { soundId, message },
        reason,
      });
      return;
    }
    const changed = await moderate(deps.db, [soundId], decision, { moderatorId: user.id, reason });
    if (changed.length === 0) {
      ctx.status = 409;
      await page(ctx, deps, { error: `Sound ${soundId} is not waiting for moderation any more.` });
      return;
    }
    ctx.status = 303;
    ctx.redirect(`${MODERATION_PATH}?${decision === 'approve' ? 'approved' : 'rejected'}=${soundId}`);
  };
}

/**
 * GET /apiv2/moderation/sounds/:id/:file: a sound's preview or image for the moderators, whatever
 * its state (the public /media/ route serves visible sounds only). Anyone else gets a 404, so the
 * address does not reveal that a pending sound exists.
 */
export function moderationFile(deps: WebDeps) {
  return async (ctx: Context) => {
    const soundId = parseId(ctx.params.id);
    const kind = fileKindByName(String(ctx.params.file));
    const location =
      webState(ctx).user?.is_moderator && kind && soundId !== undefined
        ? await deps.files.locate(soundId, kind)
        : undefined;
    if (!location) {
      await renderError(ctx, 404, { title: 'Page not found', message: 'There is no such file.' });
      return;
    }
    await sendFile(ctx, location, { maxAge: 300, private: true });
  };
}

async function page(
  ctx: Context,
  deps: WebDeps,
  view: {
    notice?: string;
    error?: string;
    fieldError?: { soundId: number; message: string };
    reason?: string;
  },
): Promise<void> {
  const sounds = (await listPendingModeration(deps.db)).map((s) => ({
    ...s,
    createdIso: s.created.toISOString(),
    createdText: s.created.toLocaleString('en-GB', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: 'UTC',
    }),
    durationText: s.duration > 0 ? `${s.duration.toFixed(1)} s` : '',
    previewUrl: moderationFileUrl(s.id, FILE_NAMES['preview-lq-mp3']),
    waveformUrl: moderationFileUrl(s.id, FILE_NAMES.waveform_m),
    spectrogramUrl: moderationFileUrl(s.id, FILE_NAMES.spectral_m),
  }));
  await render(ctx, 'moderation', {
    sounds,
    notice: view.notice,
    error: view.error,
    fieldError: view.fieldError,
    reason: view.reason ?? '',
    reasonMax: MODERATION_REASON_MAX,
  });
}
