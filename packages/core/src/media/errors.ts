import { EarshotError } from '@earshot/common/errors';
import { ACCEPTED_TYPES } from './formats.ts';

export type MediaErrorCode =
  | 'empty_file'
  | 'unsupported_format'
  | 'wrong_extension'
  | 'corrupt_file'
  | 'no_audio'
  | 'too_many_channels'
  | 'too_long'
  | 'timeout'
  | 'processing_failed';

const messages: Record<MediaErrorCode, string> = {
  empty_file: 'The file is empty.',
  unsupported_format: `The file is not an audio format we accept (${ACCEPTED_TYPES.join(', ')}).`,
  wrong_extension: 'The file name extension does not match its content.',
  corrupt_file: 'The file is damaged or incomplete and cannot be decoded.',
  no_audio: 'The file contains no audio.',
  too_many_channels: 'The file has more audio channels than we can turn into previews.',
  too_long: 'The sound is longer than the longest we take.',
  timeout: 'Processing the file took too long and was stopped.',
  processing_failed: 'The file could not be processed.',
};

/**
 * A file that cannot become a sound, told in words a user understands. `details` carries what an
 * operator needs (the ffmpeg stderr tail, the probed format) and is never shown to users verbatim.
 */
export class MediaError extends EarshotError {
  declare readonly code: MediaErrorCode;

  constructor(code: MediaErrorCode, detail?: string, details?: unknown) {
    super(
      detail ? `${messages[code]} ${detail}` : messages[code],
      code,
      code === 'processing_failed' ? 500 : 400,
      details,
    );
  }
}
