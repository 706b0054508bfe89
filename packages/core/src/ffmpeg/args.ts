import path from 'node:path';

/**
 * Pure builders of ffmpeg/ffprobe argument lists (tested without ffmpeg). Inputs are passed with
 * the `file:` protocol so that a file named like `pipe:1` or `http://…` is still read as a file.
 */

const QUIET = ['-hide_banner', '-nostdin', '-v', 'error'];

export function fileUrl(file: string): string {
  return `file:${path.resolve(file)}`;
}

export function probeArgs(file: string): string[] {
  return ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-i', fileUrl(file)];
}

export type PreviewCodec = 'libmp3lame' | 'libvorbis';

export interface PreviewEncoding {
  codec: PreviewCodec;
  /** Target bitrate in kbps. */
  kbps: number;
  /** Vorbis quality used where libvorbis cannot hold a managed bitrate (rates below 44.1 kHz). */
  fallbackQuality?: number;
  /** Vorbis: encode at this quality (chosen to land at `kbps`, see vorbis-quality.ts) instead of a managed bitrate. */
  quality?: number;
}

export interface SourceAudio {
  samplerate: number;
  channels: number;
  /** Index of the audio stream to use (ffprobe's stream index). */
  streamIndex: number;
}

/** Rates libmp3lame and libvorbis encode; outside them previews are resampled to the nearest family. */
export function previewSampleRate(sourceRate: number): number {
  if (sourceRate > 48_000) return sourceRate % 44_100 === 0 ? 44_100 : 48_000;
  return sourceRate;
}

/**
 * Output options of one preview: original rate where the codec allows, at most 2 channels.
 * Vorbis is VBR by nature and lands far below the contract's ~192/~80 kbps on simple sounds, so it
 * runs with a managed bitrate (min = max = target); libvorbis has no managed mode below 44.1 kHz,
 * where it falls back to the quality that upstream uses.
 */
export function previewOutputArgs(encoding: PreviewEncoding, source: SourceAudio, output: string): string[] {
  const rate = previewSampleRate(source.samplerate);
  const args = ['-map', `0:${source.streamIndex}`, '-vn', '-sn', '-dn', '-map_metadata', '-1'];
  args.push('-af', PREVIEW_CLIP_FILTER);
  if (source.channels > 2) args.push('-ac', '2');
  if (rate !== source.samplerate) args.push('-ar', String(rate));
  return [...args, ...encoderArgs(encoding, rate), fileUrl(output)];
}

/**
 * Previews are clipped to full scale before encoding: LAME aborts on an assertion when a sample is
 * NaN, infinite or absurdly large (a float WAV's corrupt word; the soak benchmark found one), and a
 * player clips there anyway. Samples within ±1 pass unchanged (checked bit for bit).
 */
export const PREVIEW_CLIP_FILTER = 'asoftclip=type=hard:threshold=1';

/** Codec, rate control and container of one preview encoded at `rate`. */
function encoderArgs(encoding: PreviewEncoding, rate: number): string[] {
  const kbps = `${encoding.kbps}k`;
  if (encoding.codec === 'libmp3lame') return ['-c:a', 'libmp3lame', '-b:a', kbps, '-f', 'mp3'];
  const control =
    encoding.quality !== undefined
      ? ['-q:a', encoding.quality.toFixed(2)]
      : rate >= 44_100
        ? ['-b:a', kbps, '-minrate', kbps, '-maxrate', kbps]
        : ['-q:a', String(encoding.fallbackQuality ?? 3)];
  return ['-c:a', 'libvorbis', ...control, '-f', 'ogg'];
}

/** Where the Vorbis trial encodings look: `count` excerpts of `seconds` each, evenly spread. */
export interface Excerpts {
  count: number;
  seconds: number;
  /** Seconds of the source. */
  duration: number;
}

/**
 * One decode of `input`, cut down to evenly spread excerpts and shaped like the previews, encoded
 * once per trial Vorbis quality (vorbis-quality.ts measures the bytes to pick each preview's quality).
 */
export function vorbisTrialArgs(
  input: string,
  source: SourceAudio,
  excerpts: Excerpts,
  trials: Array<{ quality: number; output: string }>,
): string[] {
  const rate = previewSampleRate(source.samplerate);
  const period = (excerpts.duration / excerpts.count).toFixed(3);
  const shape = [
    ...(source.channels > 2 ? ['aformat=channel_layouts=stereo'] : []),
    ...(rate !== source.samplerate ? [`aresample=${rate}`] : []),
  ];
  const labels = trials.map((_, i) => `[t${i}]`).join('');
  const filter = [
    `[0:${source.streamIndex}]aselect='lt(mod(t\\,${period})\\,${excerpts.seconds})'`,
    'asetpts=N/SR/TB',
    PREVIEW_CLIP_FILTER,
    ...shape,
    `asplit=${trials.length}${labels}`,
  ].join(',');
  const args = [...QUIET, '-y', '-i', fileUrl(input), '-filter_complex', filter];
  trials.forEach((trial, i) => {
    args.push(
      '-map',
      `[t${i}]`,
      '-map_metadata',
      '-1',
      '-c:a',
      'libvorbis',
      '-q:a',
      trial.quality.toFixed(2),
    );
    args.push('-f', 'ogg', fileUrl(trial.output));
  });
  return args;
}

/**
 * The mono mix-down filter: the mean of all channels (ffmpeg's own `-ac 1` weights stereo by
 * 0.707 each, which is louder than the mean essentia's "mix" downmix uses). The mix runs in float:
 * on 16-bit input `pan` would otherwise write 16-bit output, rounding the halved samples to whole
 * steps and turning a quiet tail of ±1–2 steps into different noise.
 */
export function monoMixFilter(channels: number, sampleRate: number): string {
  const resample = `aresample=${sampleRate}`;
  if (channels <= 1) return resample;
  const gain = (1 / channels).toPrecision(6);
  const terms = Array.from({ length: channels }, (_, c) => `${gain}*c${c}`).join('+');
  return `aformat=sample_fmts=flt,pan=mono|c0=${terms},${resample}`;
}

/** Output options writing the mono float32 mix-down at `sampleRate` to stdout. */
export function monoPipeOutputArgs(source: SourceAudio, sampleRate: number): string[] {
  return [
    '-map',
    `0:${source.streamIndex}`,
    '-vn',
    '-sn',
    '-dn',
    '-af',
    monoMixFilter(source.channels, sampleRate),
    '-c:a',
    'pcm_f32le',
    '-f',
    'f32le',
    'pipe:1',
  ];
}

/** One decode of `input` to the mono pipe only. */
export function decodeMonoArgs(
  input: string,
  source: SourceAudio,
  sampleRate: number,
  maxSeconds?: number,
  readLimitSeconds?: number,
): string[] {
  // `-t` as an output option: ffmpeg stops reading once that much is decoded (a clip's first seconds).
  const limit = maxSeconds === undefined ? [] : ['-t', String(maxSeconds)];
  return [
    ...QUIET,
    ...readLimit(readLimitSeconds),
    '-i',
    fileUrl(input),
    ...limit,
    ...monoPipeOutputArgs(source, sampleRate),
  ];
}

/**
 * `-t` as an input option: ffmpeg reads no more than that many seconds of the file, whatever its
 * header said, so a stream far longer than stated costs no more decoding than the limit.
 */
function readLimit(seconds: number | undefined): string[] {
  return seconds === undefined ? [] : ['-t', String(seconds)];
}

/**
 * One ffmpeg process, one input, several outputs: the source is demuxed and decoded once and each
 * output gets its own resample/encode chain. `mono` adds the float32 pipe used for images/analysis
 * (stdout); `relay` adds the decoded audio for a second encoder process (fd 3, see relayEncodeArgs).
 */
export function transcodeArgs(
  input: string,
  source: SourceAudio,
  previews: Array<{ encoding: PreviewEncoding; output: string }>,
  mono?: { sampleRate: number },
  relay = false,
  readLimitSeconds?: number,
): string[] {
  const args = [...QUIET, '-y', ...readLimit(readLimitSeconds), '-i', fileUrl(input)];
  for (const p of previews) args.push(...previewOutputArgs(p.encoding, source, p.output));
  if (mono) args.push(...monoPipeOutputArgs(source, mono.sampleRate));
  if (relay) args.push(...relayOutputArgs(source));
  return args;
}

/** The audio previews are made from: preview rate, at most 2 channels; what the relay carries. */
export function relayedAudio(source: SourceAudio): SourceAudio {
  return {
    samplerate: previewSampleRate(source.samplerate),
    channels: Math.min(2, source.channels),
    streamIndex: 0,
  };
}

/** Output options sending the decoded audio, already shaped like the previews, as float32 to fd 3. */
export function relayOutputArgs(source: SourceAudio): string[] {
  const relay = relayedAudio(source);
  const args = ['-map', `0:${source.streamIndex}`, '-vn', '-sn', '-dn'];
  if (source.channels > 2) args.push('-ac', '2');
  if (relay.samplerate !== source.samplerate) args.push('-ar', String(relay.samplerate));
  args.push('-c:a', 'pcm_f32le', '-f', 'f32le', 'pipe:3');
  return args;
}

/**
 * A second encoder process reading the relayed float32 audio from stdin. Lossless hand-over (the
 * decoded samples are at most 32-bit float anyway), so its previews equal those of the first.
 */
export function relayEncodeArgs(
  relay: SourceAudio,
  previews: Array<{ encoding: PreviewEncoding; output: string }>,
): string[] {
  const input = [
    '-f',
    'f32le',
    '-ar',
    String(relay.samplerate),
    '-ac',
    String(relay.channels),
    '-i',
    'pipe:0',
  ];
  const args = [...QUIET, '-y', ...input];
  for (const p of previews) args.push(...previewOutputArgs(p.encoding, relay, p.output));
  return args;
}
