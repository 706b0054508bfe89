import type { SoundView } from '@earshot/catalogue';
import type { PendingUploadsRecord } from '@earshot/services';
import { z } from 'zod';
import { fileUrl } from '../../application/file-names.ts';
import { failureReason, processingPercent } from '../../application/pending-uploads.ts';
import { v2Timestamp } from './timestamps.ts';

const pendingSound = z.object({
  id: z.number().int(),
  name: z.string(),
  tags: z.array(z.string()),
  description: z.string(),
  created: z.string(),
  license: z.string(),
});

export const pendingUploadsSchema = z.object({
  pending_description: z.array(z.string()).describe('names of uploaded files awaiting a description'),
  pending_processing: z.array(
    pendingSound.extend({
      processing_state: z.enum(['Queued', 'Processing', 'Failed', 'Processed']),
      processing_stage: z
        .string()
        .nullable()
        .describe('the pipeline stage the sound is in (null before the first)'),
      processing_percent: z.number().int().min(0).max(100).describe('how far processing has got, 0–100'),
      processing_error: z.string().nullable().describe('why processing failed (Failed only)'),
    }),
  ),
  pending_moderation: z.array(
    pendingSound.extend({
      images: z.object({
        waveform_m: z.string(),
        waveform_l: z.string(),
        spectral_m: z.string(),
        spectral_l: z.string(),
      }),
    }),
  ),
});

export type PendingUploadsJson = z.infer<typeof pendingUploadsSchema>;

/** The pending uploads record (API.md "Pending uploads record"), plus the stage, percent and failure reason. */
export function serializePendingUploads(record: PendingUploadsRecord, origin: string): PendingUploadsJson {
  return {
    pending_description: record.pending_description,
    pending_processing: record.pending_processing.map((s) => ({
      ...minimal(s),
      processing_state: s.processing_state,
      processing_stage: s.processing_stage,
      processing_percent: processingPercent(s),
      processing_error: s.processing_state === 'Failed' ? failureReason(s) : null,
    })),
    pending_moderation: record.pending_moderation.map((s) => ({
      ...minimal(s),
      images: {
        waveform_m: fileUrl(origin, s.id, 'waveform_m'),
        waveform_l: fileUrl(origin, s.id, 'waveform_l'),
        spectral_m: fileUrl(origin, s.id, 'spectral_m'),
        spectral_l: fileUrl(origin, s.id, 'spectral_l'),
      },
    })),
  };
}

function minimal(s: SoundView) {
  return {
    id: s.id,
    name: s.name,
    tags: s.tags,
    description: s.description,
    created: v2Timestamp(s.created),
    license: s.license,
  };
}
