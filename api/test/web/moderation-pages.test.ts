import { getSound } from '@earshot/catalogue';
import { createUser } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WEB_PASSWORD, WebClient } from '../support/index.ts';

describe('moderation page (black box)', () => {
  let server: TestServer;
  let pendingId: number;
  let secondId: number;

  beforeAll(async () => {
    server = await startTestServer();
    const db = server.catalogue.db;
    await addWebUser(db, 'carol');
    await createUser(db, {
      username: 'mona',
      email: 'mona@example.org',
      password: WEB_PASSWORD,
      isModerator: true,
    });
    pendingId = server.seeded.ids.hat_sci; // the seed's pending, processed sound
    // A second pending sound: the seed's snap, sent back to moderation.
    secondId = server.seeded.ids.perc_snap;
    await db
      .updateTable('sounds')
      .set({ moderation_state: 'pending_moderation' })
      .where('id', '=', secondId)
      .execute();
  });
  afterAll(() => server?.stop());

  async function signedIn(username: string): Promise<WebClient> {
    const browser = new WebClient(server.origin);
    expect((await browser.signIn(username)).status).toBe(303);
    return browser;
  }

  const publicSound = (id: number) =>
    fetch(`${server.origin}/apiv2/sounds/${id}/?token=${server.seeded.apiKey}`);
  const previewPath = (id: number) => `/apiv2/moderation/sounds/${id}/preview-lq.mp3`;

  it('is a 403 page for a signed-in non-moderator and sends a visitor to sign in', async () => {
    const carol = await signedIn('carol');
    const res = await carol.get('/apiv2/moderation/');
    expect(res.status).toBe(403);
    expect(res.body).toContain('Moderators only');
    expect(res.body).not.toContain('/apiv2/moderation/"'); // no navigation link for her
    await carol.get('/apiv2/account/');
    expect(
      (await carol.post('/apiv2/moderation/', { sound_id: String(pendingId), decision: 'approve' })).status,
    ).toBe(403);
    expect((await new WebClient(server.origin).get('/apiv2/moderation/')).status).toBe(302);
  });

  it('lists the pending sounds with a player, waveform and spectrogram', async () => {
    const mona = await signedIn('mona');
    const res = await mona.get('/apiv2/moderation/');
    expect(res.status).toBe(200);
    expect(res.body).toContain('href="/apiv2/moderation/"'); // the navigation link
    expect(res.body).toContain('Metal hat');
    expect(res.body).toContain('Finger snap');
    expect(res.body).toContain(`<audio controls preload="metadata" src="${previewPath(pendingId)}"`);
    expect(res.body).toContain(`/apiv2/moderation/sounds/${pendingId}/waveform_m.png`);
    expect(res.body).toContain(`/apiv2/moderation/sounds/${pendingId}/spectral_m.jpg`);
    expect(res.body).toContain(`<label for="reason-${pendingId}">Reason for rejecting</label>`);
    expect(res.headers.get('content-security-policy')).toContain("media-src 'self'");
    expect(res.body).not.toContain('Kick 808'); // approved sounds are not listed
  });

  it('serves a pending sound’s preview to a moderator only (404 to others and on the public route)', async () => {
    const mona = await signedIn('mona');
    const audio = await fetch(new URL(previewPath(pendingId), server.origin), {
      headers: { Cookie: [...mona.cookies].map(([k, v]) => `${k}=${v}`).join('; '), Range: 'bytes=0-99' },
    });
    expect(audio.status).toBe(206);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    expect(audio.headers.get('cache-control')).toMatch(/^private/);
    expect((await audio.arrayBuffer()).byteLength).toBe(100);
    const image = await mona.get(`/apiv2/moderation/sounds/${pendingId}/waveform_m.png`);
    expect([image.status, image.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect((await mona.get(`/apiv2/moderation/sounds/${pendingId}/secret.txt`)).status).toBe(404);

    expect((await (await signedIn('carol')).get(previewPath(pendingId))).status).toBe(404);
    expect((await new WebClient(server.origin).get(previewPath(pendingId))).status).toBe(404);
    expect((await fetch(`${server.origin}/media/sounds/${pendingId}/preview-lq.mp3`)).status).toBe(404);
  });

  it('refuses a decision without the CSRF token', async () => {
    const mona = await signedIn('mona');
    await mona.get('/apiv2/moderation/');
    const res = await mona.post('/apiv2/moderation/', {
      csrf_token: 'forged',
      sound_id: String(pendingId),
      decision: 'approve',
    });
    expect(res.status).toBe(403);
    expect((await getSound(server.catalogue.db, pendingId))?.moderation_state).toBe('pending_moderation');
  });

  it('wants a reason to reject: without one the page comes back with an error (400)', async () => {
    const mona = await signedIn('mona');
    await mona.get('/apiv2/moderation/');
    const res = await mona.post('/apiv2/moderation/', {
      sound_id: String(secondId),
      decision: 'reject',
      reason: ' ',
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain(`id="reason-${secondId}-error"`);
    expect((await getSound(server.catalogue.db, secondId))?.moderation_state).toBe('pending_moderation');
  });

  it('rejects with a reason kept; the sound stays invisible', async () => {
    const mona = await signedIn('mona');
    await mona.get('/apiv2/moderation/');
    const res = await mona.post('/apiv2/moderation/', {
      sound_id: String(secondId),
      decision: 'reject',
      reason: 'Clipped <badly>',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/apiv2/moderation/?rejected=${secondId}`);
    const sound = await getSound(server.catalogue.db, secondId);
    expect([sound?.moderation_state, sound?.moderation_reason]).toEqual(['rejected', 'Clipped <badly>']);
    expect(sound?.moderated_by).toBeTypeOf('number');
    expect((await publicSound(secondId)).status).toBe(404);
    const list = await mona.get(res.headers.get('location')!);
    expect(list.body).toContain(`Sound ${secondId} is rejected.`);
    expect(list.body).not.toContain('Finger snap');
    // Deciding again: it is not waiting any more.
    const again = await mona.post('/apiv2/moderation/', { sound_id: String(secondId), decision: 'approve' });
    expect(again.status).toBe(409);
  });

  it('approves: the sound becomes visible in the API and leaves the list', async () => {
    expect((await publicSound(pendingId)).status).toBe(404);
    const mona = await signedIn('mona');
    await mona.get('/apiv2/moderation/');
    const res = await mona.post('/apiv2/moderation/', { sound_id: String(pendingId), decision: 'approve' });
    expect(res.status).toBe(303);
    expect((await publicSound(pendingId)).status).toBe(200);
    const list = await mona.get(res.headers.get('location')!);
    expect(list.body).toContain(`Sound ${pendingId} is approved.`);
    expect(list.body).toContain('No sound is waiting for a moderator.');
    expect((await getSound(server.catalogue.db, pendingId))?.moderation_reason).toBeNull();
  });
});
