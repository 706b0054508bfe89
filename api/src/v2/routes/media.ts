import { NotFoundError } from '@earshot/common';
import { z } from 'zod';
import { FILE_NAMES, fileKindByName } from '../../application/file-names.ts';
import type { ApiServices } from '../../application/index.ts';
import { sendFile } from '../../framework/files/send-file.ts';
import { idParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

const ONE_DAY = 86_400;

/**
 * Previews, images and analysis files of visible sounds. Public, as the contract says previews
 * need no credential; browsers and players use them directly. A sound that is not public yet is
 * its uploader's alone: the pending uploads record links its images, so they are served to the
 * uploader's OAuth2 token or web session (kept out of shared caches), and are a 404 to anyone else.
 */
export function mediaRoutes(s: ApiServices, isVisible: (soundId: number) => Promise<boolean>): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/media/sounds/{sound_id}/{file}',
      operationId: 'soundFile',
      summary: 'A preview, waveform or spectrogram image, or analysis file of a sound',
      description: `file is one of ${Object.values(FILE_NAMES).join(', ')} (min/max pairs in the audiowaveform JSON format). Supports Range, ETag and If-Modified-Since. The files of a sound not yet public are served to its uploader only (OAuth2 bearer token or web session), as the pending uploads record links its images; anyone else gets a 404.`,
      tags: ['files'],
      auth: 'public',
      params: z.object({ sound_id: idParam, file: z.string().describe('file name') }),
      response: 'file',
      errors: [416],
      handler: async ({ params, ctx, identify }) => {
        const kind = fileKindByName(params.file);
        if (!kind) throw new NotFoundError('Not found.');
        let cache: { maxAge: number; private?: boolean } = { maxAge: ONE_DAY };
        if (!(await isVisible(params.sound_id))) {
          const caller = await identify();
          const uploader = caller && (await s.files.uploaderOf(params.sound_id));
          if (!caller || caller.userId !== uploader) throw new NotFoundError('Not found.');
          cache = { maxAge: 300, private: true };
        }
        const location = await s.files.locate(params.sound_id, kind);
        if (!location) throw new NotFoundError('Not found.');
        await sendFile(ctx, location, cache);
        return { handled: true };
      },
    }),
  ];
}
