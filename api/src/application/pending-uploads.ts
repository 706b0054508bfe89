import type { SoundView } from '@earshot/catalogue';

/**
 * What the pending uploads record (`PendingUploadsRecord`, @earshot/services) says of a sound in
 * processing, in the terms users are shown: the API's JSON and the web page alike.
 */

/** How far processing has got, 0–100. */
export function processingPercent(sound: SoundView): number {
  return Math.round(Math.min(1, Math.max(0, sound.processing_progress)) * 100);
}

/** Why processing failed: the stored text is the reason, then operator detail after a blank line. */
export function failureReason(sound: SoundView): string {
  return sound.processing_error?.split('\n\n')[0] ?? 'Processing failed.';
}
