import { LICENSE_CHOICES } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import { ACCEPTED_TYPES } from '@earshot/core';
import type { Context } from 'koa';
import { z } from 'zod';
import type { SoundWrites } from '../../application/ports.ts';
import { idParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import { readUploadForm, type UploadForm } from '../../framework/http/upload-form.ts';
import { filesAllowance } from '../../framework/middleware/body-limit.ts';
import { pendingUploadsSchema, serializePendingUploads } from '../presenters/pending-uploads.ts';

/**
 * An upload's multipart form, its `audiofile` streamed to disk by the upload use case as it arrives:
 * the API's `sounds/upload/` and the upload page read it alike.
 */
export function readAudiofileForm(ctx: Context, writes: SoundWrites): Promise<UploadForm> {
  return readUploadForm(ctx, {
    fileField: 'audiofile',
    maxBytes: writes.maxUploadBytes,
    checkName: (name) => writes.checkFilename(name),
    receive: (stream, name) => writes.receive(stream, name),
    discard: (file) => writes.discard(file),
  });
}

const text = (description: string) => z.string().optional().describe(description);

/** The description fields, as upload, describe and edit take them (API.md "Upload parameters"). */
const descriptionFields = {
  name: text('the sound’s name (default: the file name)'),
  bst_category: text('a Broad Sound Taxonomy subcategory code, e.g. fx-a'),
  tags: text('tags separated by spaces (at least 3); words of one tag joined by dashes'),
  description: text('the sound’s description'),
  license: text(LICENSE_CHOICES),
  pack: text('a pack name of the user (created when missing)'),
  geotag: text("'lat,lon,zoom' (zoom an integer of at least 11)"),
};

const described = z.object({ detail: z.string(), id: z.number().int() });

/** The write resources of sounds for the OAuth2 user: strict rate limit, OAuth2 only. */
export function uploadRoutes(writes: SoundWrites): AnyRoute[] {
  const userOf = (principal: unknown) => (principal as { userId: number }).userId;
  return [
    defineRoute({
      method: 'POST',
      path: '/apiv2/sounds/upload/',
      operationId: 'uploadSound',
      summary:
        'Upload an audio file, with its description (then processed) or without (then pending description)',
      description:
        `multipart/form-data: \`audiofile\` (${ACCEPTED_TYPES.join(', ')}), and either nothing else or ` +
        '`bst_category`, `tags`, `description`, `license` (+ optional `name`, `pack`, `geotag`). The file streams ' +
        'to disk; larger than UPLOAD_MAX_BYTES is a 413. A file the catalogue already holds is refused naming its sound.',
      tags: ['uploads'],
      auth: 'oauth2',
      rateLimit: 'strict',
      // The file at its largest plus the text fields; the form reader enforces the file's own limit.
      bodyLimit: filesAllowance([['audiofile', writes.maxUploadBytes]]),
      response: z.union([z.object({ detail: z.string(), filename: z.string() }), described]),
      errors: [403, 413, 429],
      handler: async ({ principal, ctx }) => {
        const form = await readAudiofileForm(ctx, writes);
        if (!form.file)
          throw new ValidationError('No file was submitted in the "audiofile" part.', {
            audiofile: ['No file was submitted.'],
          });
        return writes.upload(userOf(principal), form.file, form.fields);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/apiv2/sounds/describe/',
      operationId: 'describeSound',
      summary: 'Describe a file pending description; it becomes a sound and is processed',
      tags: ['uploads'],
      auth: 'oauth2',
      rateLimit: 'strict',
      bodyParams: true,
      query: z.object({
        upload_filename: text('one of the names in pending_description'),
        ...descriptionFields,
      }),
      response: described,
      errors: [403, 429],
      handler: ({ principal, query }) => writes.describe(userOf(principal), query),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/sounds/pending_uploads/',
      operationId: 'pendingUploads',
      summary:
        'The user’s uploads not yet public: pending description, processing (with stage, percent, failure reason) and moderation',
      tags: ['uploads'],
      auth: 'oauth2',
      response: pendingUploadsSchema,
      errors: [403],
      handler: async ({ principal, origin }) =>
        serializePendingUploads(await writes.pending(userOf(principal)), origin),
    }),
    defineRoute({
      method: 'POST',
      path: '/apiv2/sounds/{sound_id}/edit/',
      operationId: 'editSound',
      summary: 'Change the given description fields of one of the user’s sounds (tags replace the tags)',
      tags: ['uploads'],
      auth: 'oauth2',
      rateLimit: 'strict',
      bodyParams: true,
      params: z.object({ sound_id: idParam }),
      query: z.object(descriptionFields),
      response: z.object({ detail: z.string() }),
      errors: [403, 429],
      handler: ({ principal, params, query }) => writes.edit(userOf(principal), params.sound_id, query),
    }),
  ];
}
