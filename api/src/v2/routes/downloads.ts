import { z } from 'zod';
import type { SocialService } from '../../application/social.ts';
import type { Principal } from '../../framework/auth/principal.ts';
import { sendFile } from '../../framework/files/send-file.ts';
import { idParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

/** The original file of a sound and the zip of a pack: OAuth2 only, as the contract says. */
export function downloadRoutes(social: SocialService): AnyRoute[] {
  const { downloads } = social.ports;
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/sounds/{sound_id}/download/',
      operationId: 'downloadSound',
      summary: 'The original file of a sound, as uploaded',
      description:
        'Supports Range (206, 416), ETag and If-Modified-Since. A download is counted when the file is sent from its first byte (not for each later range a player asks for).',
      tags: ['files'],
      auth: 'oauth2',
      params: z.object({ sound_id: idParam }),
      response: 'file',
      errors: [403, 416, 429],
      handler: async ({ params, principal, ctx }) => {
        const original = await downloads.soundOriginal(params.sound_id);
        ctx.attachment(original.filename);
        const sent = await sendFile(ctx, original.file, {
          maxAge: 0,
          private: true,
          mediaType: original.mediaType,
        });
        if (sent.fromStart) await social.countSoundDownload(params.sound_id, (principal as Principal).userId);
        return { handled: true };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/packs/{pack_id}/download/',
      operationId: 'downloadPack',
      summary: 'All public sounds of a pack as one zip, with a licence and attribution text file',
      description:
        'Streamed as it is built (stored, not compressed): the first bytes come at once whatever the size of the pack. No Content-Length and no ranges. The download is counted by the time the zip ends.',
      tags: ['files'],
      auth: 'oauth2',
      params: z.object({ pack_id: idParam }),
      response: 'file',
      errors: [403, 429],
      handler: async ({ params, origin, principal, ctx }) => {
        // The download is counted beside the transfer, not ahead of its first byte (four statements
        // and a change-feed round trip); the zip waits for the count before it ends, so a client
        // that has the whole zip reads the pack with the download counted.
        let counted: Promise<void> | undefined;
        const archive = await downloads.packArchive(params.pack_id, origin, {
          beforeEnd: () => counted ?? Promise.resolve(),
        });
        counted = social.countPackDownload(params.pack_id, (principal as Principal).userId);
        // A failure is reported through the stream (the zip aborts), not as an unhandled rejection.
        counted.catch(() => {});
        ctx.status = 200;
        ctx.type = 'application/zip';
        ctx.attachment(archive.filename);
        ctx.set('Cache-Control', 'private, no-store');
        ctx.body = archive.stream;
        return { handled: true };
      },
    }),
  ];
}
