import { EarshotError, ValidationError } from '@earshot/common';
import { CLIP_MAX_SECONDS, clipAnalysisNeeds, parseAnalysisFile } from '@earshot/core';
import type { ClipAnalyzer, SearchExample } from './ports.ts';

/**
 * The example a content or combined search may carry instead of a `target`: an analysis file in
 * one of the layouts earshot writes (the contract's `analysis_file`), or an audio clip analyzed
 * during the request (earshot's `audio_file` extension; at most its first 30 s).
 */
export interface SearchExampleInput {
  analysisFile?: { data: Buffer };
  audioFile?: { path: string; fileName: string };
  /** `similarity_space`: where the example is compared (see SearchExample). */
  space?: string;
}

/** The example, plus a note for the answer when the clip was cut. */
export interface ResolvedExample {
  example: SearchExample;
  note?: string;
  analyzedSeconds?: number;
}

/** The clip analyzer was not configured (a service built without it, such as a test's). */
class AudioSearchUnavailable extends EarshotError {
  constructor() {
    super('Search by audio_file is not available on this server.', 'audio_search_unavailable', 501);
  }
}

export async function resolveExample(
  input: SearchExampleInput | undefined,
  clips: ClipAnalyzer | undefined,
): Promise<ResolvedExample | undefined> {
  if (!input || (!input.analysisFile && !input.audioFile)) {
    if (input?.space !== undefined) {
      throw new ValidationError("'similarity_space' applies only to an analysis_file or audio_file search.");
    }
    return undefined;
  }
  if (input.analysisFile && input.audioFile) {
    throw new ValidationError("Send either 'analysis_file' or 'audio_file', not both.");
  }
  const space = input.space === undefined || input.space.trim() === '' ? undefined : input.space.trim();
  if (input.analysisFile) {
    return { example: { tree: parseAnalysisFile(input.analysisFile.data).tree, space } };
  }
  if (!clips) throw new AudioSearchUnavailable();
  const audio = input.audioFile as { path: string; fileName: string };
  // Only what the space compares is computed (an unknown space is a 400 before any decoding).
  const needs = clipAnalysisNeeds(space);
  const clip = await clips.analyze(audio.path, {
    fileName: audio.fileName,
    maxSeconds: CLIP_MAX_SECONDS,
    needs,
  });
  const seconds = Math.round(clip.analyzedSeconds * 100) / 100;
  return {
    example: { tree: clip.tree, space },
    analyzedSeconds: seconds,
    note: clip.truncated
      ? `audio_file is ${clip.duration.toFixed(1)} s long; only its first ${CLIP_MAX_SECONDS} s were analyzed.`
      : undefined,
  };
}
