import { describe, expect, it } from 'vitest';
import { uniqueAudio } from './bodies.ts';
import { WRITE_FAMILIES, type WriteWorld, writeRequest } from './write-families.ts';

const wav = Buffer.concat([Buffer.from('RIFF\u0024\u0000\u0000\u0000WAVEfmt '), Buffer.alloc(200, 7)]);

/** A world of fixed strings: the makers' results are recognisable in the requests. */
const world: WriteWorld = {
  valid: { soundIds: [5, 6], packIds: [2], usernames: ['alice', 'bob'], clientIds: ['CLIENT'] },
  ownSoundIds: [5],
  pendingSoundIds: [6],
  apiKey: 'APIKEY',
  standardApiKey: 'STDKEY',
  tokens: { writer: 'WRITER', standard: 'STANDARD', readOnly: 'READONLY' },
  client: { id: 'CLIENT', secret: 'SECRET', redirectUri: 'https://app.example/cb' },
  pendingFiles: ['api-pending-0.wav'],
  web: {
    session: { cookie: 'SESSION', csrf: 'CSRF' },
    username: 'carol',
    password: 'pw',
    clientId: 'CAROLCLIENT',
    pendingFiles: ['web-pending-3.wav'],
  },
  audio: [{ name: 'tone.wav', data: wav }],
  v1Targets: [
    {
      method: 'GET',
      path: '/api/sounds/{sound_id}/',
      pathParams: ['sound_id'],
      queryParams: ['fields'],
      multipart: false,
      kind: 'api',
    },
  ],
  fresh: {
    code: async () => 'FRESHCODE',
    refreshToken: async () => 'FRESHREFRESH',
    visitor: async () => ({ cookie: 'VISITOR', csrf: 'VCSRF' }),
    signedIn: async () => ({ cookie: 'FRESHSESSION', csrf: 'FCSRF' }),
  },
};

const text = (r: Awaited<ReturnType<typeof writeRequest>>) =>
  JSON.stringify({ ...r, body: r.body?.toString('latin1') });

describe('the write fuzz generator', () => {
  it('makes the same request from the same seed and index', async () => {
    for (const index of [0, 7, 123, 4567])
      expect(text(await writeRequest(31, index, world))).toBe(text(await writeRequest(31, index, world)));
  });

  it('covers every family, and mostly with the keys that get past authentication and CSRF', async () => {
    const requests = await Promise.all(Array.from({ length: 3000 }, (_, i) => writeRequest(31, i, world)));
    const families = new Set(requests.map((r) => r.family));
    expect([...families].sort()).toEqual([...WRITE_FAMILIES].sort());
    const writes = requests.filter(
      (r) => r.family?.startsWith('v2 ') && r.family !== 'v2 bookmark categories',
    );
    const writer = writes.filter((r) => r.headers.authorization === 'Bearer WRITER').length;
    expect(writer / writes.length).toBeGreaterThan(0.6);
    // Some on the standard credential, so its limits are part of the run.
    expect(writes.some((r) => r.headers.authorization === 'Bearer STANDARD')).toBe(true);
    const posts = requests.filter(
      (r) => r.kind === 'page' && r.method === 'POST' && r.target.startsWith('POST /people/'),
    );
    const withToken = posts.filter(
      (r) =>
        r.headers.cookie === 'earshot_session=SESSION' &&
        (r.body?.includes('CSRF') || r.headers['x-csrf-token'] === 'CSRF'),
    );
    expect(withToken.length / posts.length).toBeGreaterThan(0.8);
    const tokenRequests = requests.filter((r) => r.family === 'OAuth2 token endpoint');
    expect(tokenRequests.some((r) => r.body?.includes('FRESHCODE'))).toBe(true);
    expect(tokenRequests.some((r) => r.body?.includes('FRESHREFRESH'))).toBe(true);
    // Uploads carry the audio (its header), mostly inside a whole multipart body.
    const uploads = requests.filter((r) => r.target === 'POST /apiv2/sounds/upload/' && r.method === 'POST');
    expect(uploads.filter((r) => r.body?.includes('RIFF')).length / uploads.length).toBeGreaterThan(0.8);
    const closed = uploads.filter((r) => r.body?.toString('latin1').trimEnd().endsWith('--'));
    expect(closed.length / uploads.length).toBeGreaterThan(0.8);
  });

  it('stamps each upload so that no two requests send the same file, keeping the header', () => {
    const a = uniqueAudio(wav, 'tone.wav', 1, false);
    const b = uniqueAudio(wav, 'tone.wav', 2, false);
    expect(a.length).toBe(wav.length);
    expect(a.subarray(0, 16)).toEqual(wav.subarray(0, 16));
    expect(a.equals(b)).toBe(false);
    expect(uniqueAudio(wav, 'tone.wav', 1, true)).toBe(wav);
  });
});
