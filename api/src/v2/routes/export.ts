import { NotFoundError } from '@earshot/common';
import type { CatalogueExports } from '../../application/ports.ts';
import { sendFile } from '../../framework/files/send-file.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

/** The bulk export of the public catalogue (docs/api.md "Beyond the contract"). */
export function exportRoutes(exports: CatalogueExports): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/export/',
      operationId: 'catalogueExport',
      summary:
        'earshot: the public catalogue as gzipped JSON Lines (one sound a line, with its licence deed and credit line); Last-Modified and X-Export-Created say when it was made, X-Changes-Cursor where the changes feed picks up',
      tags: ['sounds'],
      auth: 'read',
      response: 'file',
      errors: [416],
      handler: async ({ ctx }) => {
        const latest = await exports.latest();
        if (!latest) throw new NotFoundError('No export has been made yet.');
        ctx.set('X-Export-Created', latest.created);
        ctx.set('X-Export-Sounds', String(latest.sounds));
        ctx.set('X-Changes-Cursor', latest.cursor);
        ctx.set('Content-Disposition', `attachment; filename="${latest.file}"`);
        await sendFile(ctx, latest.path, { maxAge: 300, private: true, mediaType: 'application/gzip' });
        return { handled: true };
      },
    }),
  ];
}
