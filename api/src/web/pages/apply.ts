import { EarshotError, NotFoundError } from '@earshot/common';
import {
  applyForCredential,
  CREDENTIAL_LIMITS,
  type CredentialFieldErrors,
  CredentialLimitReached,
  listUserCredentials,
  PERMISSION_GRANTED_PATH,
  regenerateApiKey,
  revokeApiCredential,
} from '@earshot/services';
import type { Context } from 'koa';
import { requestOrigin } from '../../framework/http/origin.ts';
import type { WebDeps } from '../deps.ts';
import { render } from '../render.ts';
import { formFields, webState } from '../state.ts';

export const APPLY_PATH = '/apiv2/apply/';

interface ApplyForm {
  name: string;
  description: string;
  redirect_uri: string;
}

/** A key just made: the one answer that shows it in full (only its digest is stored). */
interface FreshKey {
  client_id: string;
  client_secret: string;
  name: string;
}

/** GET /apiv2/apply/: the user's credentials (keys masked) and the form asking for another. */
export function showApply(deps: WebDeps) {
  return async (ctx: Context) => {
    const notice =
      ctx.query.revoked === '1'
        ? 'The credential is revoked: its API key and its OAuth2 tokens no longer work.'
        : undefined;
    await page(ctx, deps, { notice });
  };
}

/**
 * POST /apiv2/apply/: asks for a credential; a wrong field shows the form again (400). The answer
 * to a good form is the page itself (201, never cached) with the new key in full: it is not stored,
 * so there is no later page that could show it. Reloading shows the masked key.
 */
export function submitApply(deps: WebDeps) {
  return async (ctx: Context) => {
    const user = webState(ctx).user!;
    const fields = formFields(ctx);
    const form: ApplyForm = {
      name: fields.name ?? '',
      description: fields.description ?? '',
      redirect_uri: fields.redirect_uri ?? '',
    };
    try {
      const credential = await applyForCredential(
        deps.db,
        {
          username: user.username,
          name: form.name,
          description: form.description,
          redirectUri: form.redirect_uri,
        },
        deps.credentialsPerUser,
      );
      await showFresh(ctx, deps, credential, 201);
    } catch (err) {
      if (err instanceof CredentialLimitReached) {
        ctx.status = 409;
        await page(ctx, deps, { form, error: err.message });
        return;
      }
      if (!(err instanceof EarshotError) || err.status !== 400) throw err;
      ctx.status = 400;
      const errors = (err.details ?? {}) as CredentialFieldErrors;
      await page(ctx, deps, {
        form,
        errors,
        error: 'The credential was not created: correct the marked fields.',
      });
    }
  };
}

/** POST /apiv2/apply/regenerate/: gives one of the user's credentials a new key, shown this once. */
export function submitRegenerate(deps: WebDeps) {
  return async (ctx: Context) => {
    const user = webState(ctx).user!;
    const clientId = formFields(ctx).client_id ?? '';
    let fresh: FreshKey;
    try {
      fresh = await regenerateApiKey(deps.db, user.id, clientId);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await page(ctx, deps, { error: 'You have no such credential: no key was made.' });
      ctx.status = 404; // after render, which reads a 404 as "no status set yet"
      return;
    }
    await showFresh(ctx, deps, fresh, 200);
  };
}

async function showFresh(ctx: Context, deps: WebDeps, fresh: FreshKey, status: number): Promise<void> {
  await page(ctx, deps, { fresh });
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
}

/** POST /apiv2/apply/revoke/: revokes one of the user's credentials, then back to the list. */
export function submitRevoke(deps: WebDeps) {
  return async (ctx: Context) => {
    const user = webState(ctx).user!;
    const clientId = formFields(ctx).client_id ?? '';
    try {
      await revokeApiCredential(deps.db, user.id, clientId);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await page(ctx, deps, { error: 'You have no such credential: nothing was revoked.' });
      ctx.status = 404; // after render, which reads a 404 as "no status set yet"
      return;
    }
    ctx.status = 303;
    ctx.redirect(`${APPLY_PATH}?revoked=1`);
  };
}

async function page(
  ctx: Context,
  deps: WebDeps,
  view: {
    form?: ApplyForm;
    errors?: CredentialFieldErrors;
    error?: string;
    notice?: string;
    fresh?: FreshKey;
  },
): Promise<void> {
  const user = webState(ctx).user!;
  const credentials = (await listUserCredentials(deps.db, user.id)).map((c) => ({
    ...c,
    createdIso: c.created.toISOString(),
    createdText: c.created.toLocaleDateString('en-GB', { year: 'numeric', month: 'short', day: 'numeric' }),
  }));
  const fresh = view.fresh;
  await render(ctx, 'apply', {
    credentials,
    fresh,
    form: view.form ?? { name: '', description: '', redirect_uri: '' },
    errors: view.errors ?? {},
    error: view.error,
    notice: fresh
      ? `The API key of “${fresh.name}” is in the table. Copy it now: it is shown this once, and only its first characters afterwards.`
      : view.notice,
    limits: CREDENTIAL_LIMITS,
    permissionGrantedUrl: `${requestOrigin(ctx, deps)}${PERMISSION_GRANTED_PATH}`,
  });
}
