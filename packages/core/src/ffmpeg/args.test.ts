import { describe, expect, it } from 'vitest';
import {
  decodeMonoArgs,
  fileUrl,
  monoMixFilter,
  previewOutputArgs,
  previewSampleRate,
  probeArgs,
  relayEncodeArgs,
  relayedAudio,
  transcodeArgs,
} from './args.ts';

const stereo44 = { samplerate: 44_100, channels: 2, streamIndex: 0 };

function valueAfter(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i === -1 ? undefined : args[i + 1];
}

describe('ffmpeg argument builders', () => {
  it('reads inputs through the file protocol, so odd names are never protocols', () => {
    expect(fileUrl('/x/pipe:1')).toBe('file:/x/pipe:1');
    expect(probeArgs('/a/b.wav')).toEqual([
      '-v',
      'error',
      '-print_format',
      'json',
      '-show_format',
      '-show_streams',
      '-i',
      'file:/a/b.wav',
    ]);
  });

  it('encodes mp3 previews at a constant target bitrate, keeping rate and channels', () => {
    const args = previewOutputArgs({ codec: 'libmp3lame', kbps: 128 }, stereo44, '/o/hq.mp3');
    expect(valueAfter(args, '-c:a')).toBe('libmp3lame');
    expect(valueAfter(args, '-b:a')).toBe('128k');
    expect(valueAfter(args, '-map')).toBe('0:0');
    expect(args).not.toContain('-ar');
    expect(args).not.toContain('-ac');
    expect(args.at(-1)).toBe('file:/o/hq.mp3');
  });

  it('holds vorbis to its target with a managed bitrate at 44.1 kHz and up', () => {
    const args = previewOutputArgs(
      { codec: 'libvorbis', kbps: 192, fallbackQuality: 6 },
      stereo44,
      '/o/hq.ogg',
    );
    expect(valueAfter(args, '-b:a')).toBe('192k');
    expect(valueAfter(args, '-minrate')).toBe('192k');
    expect(valueAfter(args, '-maxrate')).toBe('192k');
    expect(args).not.toContain('-q:a');
  });

  it('falls back to vorbis quality below 44.1 kHz, where libvorbis has no managed mode', () => {
    const source = { samplerate: 22_050, channels: 1, streamIndex: 0 };
    const args = previewOutputArgs({ codec: 'libvorbis', kbps: 80, fallbackQuality: 1 }, source, '/o/lq.ogg');
    expect(valueAfter(args, '-q:a')).toBe('1');
    expect(args).not.toContain('-b:a');
  });

  it('cuts more than two channels down to two and resamples only rates the codecs lack', () => {
    const surround = { samplerate: 96_000, channels: 6, streamIndex: 1 };
    const args = previewOutputArgs({ codec: 'libmp3lame', kbps: 64 }, surround, '/o/lq.mp3');
    expect(valueAfter(args, '-ac')).toBe('2');
    expect(valueAfter(args, '-ar')).toBe('48000');
    expect(valueAfter(args, '-map')).toBe('0:1');
    expect(previewSampleRate(88_200)).toBe(44_100);
    expect(previewSampleRate(8_000)).toBe(8_000);
    expect(previewSampleRate(48_000)).toBe(48_000);
  });

  it('mixes to mono as the mean of the channels', () => {
    expect(monoMixFilter(1, 44_100)).toBe('aresample=44100');
    expect(monoMixFilter(2, 44_100)).toBe(
      'aformat=sample_fmts=flt,pan=mono|c0=0.500000*c0+0.500000*c1,aresample=44100',
    );
    expect(monoMixFilter(4, 22_050)).toContain('0.250000*c3');
  });

  it('decodes to float32 on stdout', () => {
    const args = decodeMonoArgs('/in.flac', stereo44, 44_100);
    expect(args.slice(-4)).toEqual(['pcm_f32le', '-f', 'f32le', 'pipe:1']);
    expect(valueAfter(args, '-i')).toBe('file:/in.flac');
  });

  it('builds one process with one input and an output per preview plus the mono pipe', () => {
    const args = transcodeArgs(
      '/in.wav',
      stereo44,
      [
        { encoding: { codec: 'libmp3lame', kbps: 128 }, output: '/o/a.mp3' },
        { encoding: { codec: 'libvorbis', kbps: 80 }, output: '/o/b.ogg' },
      ],
      { sampleRate: 44_100 },
    );
    expect(args.filter((a) => a === '-i')).toHaveLength(1);
    expect(args.filter((a) => a === '-map')).toHaveLength(3);
    expect(args).toContain('file:/o/a.mp3');
    expect(args).toContain('file:/o/b.ogg');
    expect(args.at(-1)).toBe('pipe:1');
    expect(args).toContain('-y');
  });

  it('relays the decoded audio shaped like the previews to a second encoder process', () => {
    const surround = { samplerate: 96_000, channels: 6, streamIndex: 2 };
    const args = transcodeArgs('/in.wav', surround, [], undefined, true);
    expect(args.slice(-14)).toEqual([
      '-map',
      '0:2',
      '-vn',
      '-sn',
      '-dn',
      '-ac',
      '2',
      '-ar',
      '48000',
      '-c:a',
      'pcm_f32le',
      '-f',
      'f32le',
      'pipe:3',
    ]);
    const relay = relayedAudio(surround);
    expect(relay).toEqual({ samplerate: 48_000, channels: 2, streamIndex: 0 });
    const encode = relayEncodeArgs(relay, [
      { encoding: { codec: 'libvorbis', kbps: 80 }, output: '/o/lq.ogg' },
    ]);
    expect(encode.slice(encode.indexOf('-f'), encode.indexOf('pipe:0') + 1)).toEqual([
      '-f',
      'f32le',
      '-ar',
      '48000',
      '-ac',
      '2',
      '-i',
      'pipe:0',
    ]);
    // Already at the preview rate and channel count: the encoder resamples nothing.
    const outputSide = encode.slice(encode.indexOf('pipe:0') + 1);
    expect(outputSide).not.toContain('-ac');
    expect(outputSide).not.toContain('-ar');
  });
});
