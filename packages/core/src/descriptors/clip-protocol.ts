import type { FfmpegPaths } from '../ffmpeg/ffmpeg.ts';
import type { AnalyzeClipOptions, ClipAnalysis } from './analyze-clip.ts';

/** Messages between ClipAnalysisPool and clip.worker.ts. */
export interface ClipRequest {
  id: number;
  file: string;
  options: Omit<AnalyzeClipOptions, 'ffmpeg'>;
}

export type ClipReply =
  | { id: number; ok: true; result: ClipAnalysis }
  | { id: number; ok: false; error: { message: string; code?: string; status?: number } };

/** What ClipAnalysisPool hands a thread it starts. */
export interface ClipWorkerData {
  /** The nice value the thread sets on itself (undefined: left as it is). */
  priority?: number;
  /** The paths of the pool's Ffmpeg: the thread runs its own with them. */
  ffmpeg?: FfmpegPaths;
}
