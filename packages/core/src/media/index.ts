export { resolveBinary } from '../ffmpeg/binaries.ts';
export { FfmpegProcessError } from '../ffmpeg/errors.ts';
export { ANALYSIS_SAMPLE_RATE, type DecodedSignal, type DecodeOptions, decodeMono } from './decode.ts';
export { MediaError, type MediaErrorCode } from './errors.ts';
export { ACCEPTED_TYPES, type SoundType } from './formats.ts';
export { type FfprobeOutput, type ProbeOptions, type ProbeResult, probeFile } from './probe.ts';
