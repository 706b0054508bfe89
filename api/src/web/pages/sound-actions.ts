import { AlreadyRatedError } from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';
import type { Context } from 'koa';
import type { ApiServices } from '../../application/index.ts';
import type { SocialService } from '../../application/social.ts';
import { sendFile } from '../../framework/files/send-file.ts';
import { parseId } from '../../framework/http/params.ts';
import { renderError } from '../render.ts';
import { loginUrl } from '../require-signed-in.ts';
import { formFields, webState } from '../state.ts';
import { soundPath } from './people.ts';

/** The comments shown under a sound (newest first). */
const COMMENTS_SHOWN = 50;

/** What the partial templates/partials/sound-actions.eta renders for one sound. */
export interface SoundActionsView {
  soundId: number;
  /** The sound page the forms come back to. */
  soundPath: string;
  signedIn: boolean;
  /** The sign-in page, coming back to the sound page (visitors only). */
  signInPath: string;
  csrfToken?: string;
  /** The user's rating (1–5), if they rated it: rating again is refused. */
  rating?: number;
  bookmark?: { name: string; category: string | null };
  /** The original file through the web session (signed in only). */
  downloadPath: string;
  /** `datetime`: the moment as ISO 8601 in UTC; `createdText`: the same in words. */
  comments: Array<{ username: string; comment: string; datetime: string; createdText: string }>;
  numComments: number;
  /** One line saying what the last form did, or why it was refused (?done= / ?failed= codes). */
  notice?: string;
  error?: string;
}

const NOTICES: Record<string, string> = {
  rated: 'Thank you: your rating is saved.',
  bookmarked: 'The sound is bookmarked.',
  commented: 'Your comment is published.',
};

const ERRORS: Record<string, string> = {
  'already-rated': 'You have already rated this sound.',
  rating: 'Choose a rating from 1 to 5 stars.',
  comment: 'Write a comment (at most 4000 characters).',
  bookmark: 'Bookmark and category names take at most 128 characters.',
};

/**
 * The view model of a sound's actions for the sound page: the signed-in user's rating and
 * bookmark, the download link, the comment form and the comments. Everything is read through the
 * same use cases as the API's resources.
 */
export async function soundActions(
  ctx: Context,
  services: ApiServices,
  sound: { id: number; username: string },
): Promise<SoundActionsView> {
  const state = webState(ctx);
  const path = soundPath(sound.username, sound.id);
  const social = services.social;
  const [mine, comments, session] = await Promise.all([
    state.user && social ? social.ports.feedback.mine(state.user.id, sound.id) : undefined,
    services.sounds.comments(sound.id, { page: { page: 1, pageSize: COMMENTS_SHOWN, style: 'list' } }),
    state.user ? state.sessions?.ensure() : undefined,
  ]);
  const done = typeof ctx.query.done === 'string' ? NOTICES[ctx.query.done] : undefined;
  const failed = typeof ctx.query.failed === 'string' ? ERRORS[ctx.query.failed] : undefined;
  return {
    soundId: sound.id,
    soundPath: path,
    signedIn: Boolean(state.user),
    signInPath: loginUrl(path),
    csrfToken: session?.csrfToken,
    rating: mine?.rating,
    bookmark: mine?.bookmark,
    downloadPath: `${path}download/`,
    comments: comments.items.map((c) => ({
      username: c.username,
      comment: c.comment,
      datetime: c.created.toISOString(),
      createdText: c.created.toLocaleString('en-GB', {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: 'UTC',
      }),
    })),
    numComments: comments.count,
    notice: done,
    error: failed,
  };
}

type Action = 'rate' | 'bookmark' | 'comment';

/**
 * POST /people/<username>/sounds/<id>/{rate,bookmark,comment}/ (signed in, CSRF checked): the
 * same use case as the API's resource, then 303 back to the sound page with a notice or the reason
 * it was refused (Post/Redirect/Get: reloading the page does not send the form again).
 */
export function submitSoundAction(services: ApiServices, action: Action) {
  return async (ctx: Context) => {
    const social = requireSocial(services);
    const user = webState(ctx).user!;
    const soundId = parseId(ctx.params.id);
    if (soundId === undefined) throw new NotFoundError('There is no such sound.');
    const form = formFields(ctx);
    const back = soundPath(String(ctx.params.username), soundId);
    let outcome: string;
    try {
      if (action === 'rate') await social.rate(user.id, soundId, { rating: form.rating });
      else if (action === 'comment') await social.comment(user.id, soundId, { comment: form.comment });
      else await social.bookmark(user.id, soundId, { name: form.name, category: form.category });
      outcome = `done=${action === 'rate' ? 'rated' : `${action}ed`}`;
    } catch (err) {
      if (err instanceof NotFoundError) {
        await renderError(ctx, 404, { title: 'Page not found', message: 'There is no such sound.' });
        return;
      }
      if (err instanceof AlreadyRatedError) outcome = 'failed=already-rated';
      else if (err instanceof ValidationError) outcome = `failed=${action === 'rate' ? 'rating' : action}`;
      else throw err;
    }
    ctx.status = 303;
    ctx.redirect(`${back}?${outcome}#actions`);
  };
}

/**
 * GET /people/<username>/sounds/<id>/download/: the original file for a signed-in browser (the
 * API's download needs an OAuth2 token). The same downloads use case, file and counting rule:
 * counted when sent from its first byte, not for each later range.
 */
export function downloadSound(services: ApiServices) {
  return async (ctx: Context) => {
    const social = requireSocial(services);
    const user = webState(ctx).user!;
    const soundId = parseId(ctx.params.id);
    if (soundId === undefined) throw new NotFoundError('There is no such sound.');
    let original: Awaited<ReturnType<typeof social.ports.downloads.soundOriginal>>;
    try {
      original = await social.ports.downloads.soundOriginal(soundId);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await renderError(ctx, 404, { title: 'Page not found', message: 'There is no such sound.' });
      return;
    }
    ctx.attachment(original.filename);
    const sent = await sendFile(ctx, original.file, {
      maxAge: 0,
      private: true,
      mediaType: original.mediaType,
    });
    if (sent.fromStart) await social.countSoundDownload(soundId, user.id);
  };
}

function requireSocial(services: ApiServices): SocialService {
  if (!services.social) throw new NotFoundError('Ratings, comments and downloads are not served here.');
  return services.social;
}
