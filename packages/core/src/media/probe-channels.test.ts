import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, synthChannels } from '../testing/audio.ts';
import { MediaError } from './errors.ts';
import { MAX_CHANNELS, probeFile } from './probe.ts';

describe('probe: channel count (issue 19)', () => {
  const dir = makeTempDir('earshot-channels-');

  it('refuses a 64-channel WAV with a reason a person understands, as a user error (no retry)', async () => {
    const file = synthChannels(path.join(dir, 'wide.wav'), 64, 0.2);
    const err = await probeFile(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: 'too_many_channels', status: 400 });
    expect((err as Error).message).toBe(
      `The file has more audio channels than we can turn into previews. It has 64; at most ${MAX_CHANNELS} are accepted.`,
    );
  });

  it(`takes ${MAX_CHANNELS} channels`, async () => {
    const file = synthChannels(path.join(dir, 'surround.wav'), MAX_CHANNELS, 0.2);
    expect((await probeFile(file)).channels).toBe(MAX_CHANNELS);
  });
});
