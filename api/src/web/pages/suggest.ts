import { ValidationError } from '@earshot/common';
import type { Context } from 'koa';
import type { SuggestionReader } from '../../application/ports.ts';

/**
 * GET /search/suggest.json?q=: the search boxes' completions (static/suggest.js), the answer of
 * `/apiv2/search/suggest/` for the pages, which have no credential to call it with.
 */
export function suggestJson(suggestions: SuggestionReader) {
  return async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      const found = await suggestions.suggest({
        q: typeof ctx.query.q === 'string' ? ctx.query.q : undefined,
      });
      ctx.body = {
        q: found.q,
        tags: found.tags,
        names: found.names.map((n) => ({ name: n.name, num_downloads: n.numDownloads })),
      };
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      ctx.status = 400;
      ctx.body = { detail: err.message };
    }
  };
}
