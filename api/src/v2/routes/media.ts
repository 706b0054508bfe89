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
 * need no credential; browsers and players use them directly.
 */
export function mediaRoutes(s: ApiServices, isVisible: (soundId: number) => Promise<boolean>): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/media/sounds/{sound_id}/{file}',
      operationId: 'soundFile',
      summary: 'A preview, waveform or spectrogram image, or analysis file of a sound',
      description: `file is one of ${Object.values(FILE_NAMES).join(', ')} (min/max pairs in the audiowaveform JSON format). Supports Range, ETag and If-Modified-Since.`,
      tags: ['files'],
      auth: 'public',
      params: z.object({ sound_id: idParam, file: z.string().describe('file name') }),
      response: 'file',
      errors: [416],
      handler: async ({ params, ctx }) => {
        const kind = fileKindByName(params.file);
        if (!kind || !(await isVisible(params.sound_id))) throw new NotFoundError('Not found.');
        const location = await s.files.locate(params.sound_id, kind);
        if (!location) throw new NotFoundError('Not found.');
        await sendFile(ctx, location, { maxAge: ONE_DAY });
        return { handled: true };
      },
    }),
  ];
}
