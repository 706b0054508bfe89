import { GEN_AI_PREFERENCES, type GenAiPreference } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import { changeGenAiPreference } from '@earshot/services';
import type { Context } from 'koa';
import type { WebDeps } from '../deps.ts';
import { render } from '../render.ts';
import { formFields, webState } from '../state.ts';

export const ACCOUNT_PATH = '/apiv2/account/';

/** The choices of the settings form, in upstream's order, each with what it asks of model trainers. */
const GEN_AI_CHOICES: Record<GenAiPreference, { label: string; help: string }> = {
  'no-additional-preferences': {
    label: 'No preference beyond the licence',
    help: 'My sounds may be used to train generative AI models as far as their Creative Commons licence allows.',
  },
  'open-source-models': {
    label: 'Open-source models only',
    help: 'Use my sounds only for models released as open source, with their weights, code and training documentation.',
  },
  'noncommercial-open-source-models': {
    label: 'Non-commercial open-source models only',
    help: 'As above, and the model is neither trained in a commercial setting nor used commercially.',
  },
  'no-gen-ai': {
    label: 'No generative AI',
    help: 'I prefer that my sounds are not used to train generative AI models.',
  },
};

/** GET /apiv2/account/: where a sign-in lands by default (behind requireSignedIn), with the settings form. */
export function showAccount() {
  return async (ctx: Context) => {
    await accountPage(ctx, { notice: ctx.query.saved === '1' ? 'Your settings are saved.' : undefined });
  };
}

/** POST /apiv2/account/ (signed in, CSRF checked): saves the generative-AI settings, back to the page. */
export function submitAccount(deps: WebDeps) {
  return async (ctx: Context) => {
    const user = webState(ctx).user;
    if (!user) return;
    const fields = formFields(ctx);
    try {
      await changeGenAiPreference(deps.db, user.id, {
        preference: fields.gen_ai_preference ?? '',
        speechOptOut: fields.gen_ai_speech_opt_out === 'on',
      });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      ctx.status = 400;
      return accountPage(ctx, { error: err.message });
    }
    ctx.redirect(`${ACCOUNT_PATH}?saved=1`);
    ctx.status = 303;
  };
}

async function accountPage(ctx: Context, alert: { notice?: string; error?: string }): Promise<void> {
  const user = webState(ctx).user;
  const joined = user?.date_joined ? new Date(user.date_joined) : undefined;
  await render(ctx, 'account', {
    ...alert,
    joined: joined?.toISOString() ?? '',
    joinedText: joined?.toLocaleDateString('en-GB', { year: 'numeric', month: 'long', day: 'numeric' }) ?? '',
    genAiChoices: GEN_AI_PREFERENCES.map((value) => ({
      value,
      ...GEN_AI_CHOICES[value],
      checked: user?.gen_ai_preference === value,
    })),
    speechOptOut: user?.gen_ai_speech_opt_out ?? false,
  });
}
